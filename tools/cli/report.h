/* The per-rank files of one run (format "nccltap-rank/1", written by the
 * shim as NCCLTAP_DIR/nccltap-<host>-<pid>.json), loaded into memory, and
 * what the report derives from them across ranks. */
#ifndef NCCLTAP_CLI_REPORT_H
#define NCCLTAP_CLI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* One bucket of a duration histogram: `count` timed calls that took between
 * 1.04^bucket and 1.04^(bucket+1) ns. */
struct hist_bin {
    int bucket;
    uint64_t count;
};

/* One row of a file's "ops": one (rank, communicator, op, dtype, size class). */
struct op_row {
    const struct rank_file *file;
    int rank;
    const char *comm, *comm_name, *op, *dtype;
    uint64_t size_class;
    double bytes;             /* mean S per call */
    uint64_t calls, timed, bytes_total;
    double grouped;           /* mean number of ops timed as one group (1: none) */
    uint64_t t_sum, t_min, t_max;  /* time_ns over the timed calls */
    double us_mean, us_min, us_p50, us_p90, us_p99, us_max;
    double algbw_gbs, busbw_gbs;
    double bw_bytes, bw_busbytes;  /* S and S x bus factor, over the timed calls */
    struct hist_bin *hist;
    size_t nhist;
};

/* One entry of a file's "comms": this process's view of a communicator. */
struct comm_entry {
    const char *id, *parent, *name, *origin, *state;
    int rank, nranks;
};

struct totals {
    uint64_t calls, dropped, timed, untimed, captured, pending, failed;
    uint64_t lost;       /* timed ops whose events never completed (optional) */
    uint64_t simulated;  /* in groups closed by ncclGroupSimulateEnd (optional) */
};

/* Adds b into a. */
void totals_add(struct totals *a, const struct totals *b);

/* One per-rank file. Strings point into `root`, kept alive with the file. */
struct rank_file {
    char *path;
    json_t *root;
    bool final;
    const char *host, *job, *nccl_version, *timing, *timing_note;
    long long pid;
    double wall_s;
    int *ranks;
    size_t nranks;
    struct comm_entry *comms;
    size_t ncomms;
    struct op_row *ops;
    size_t nops;
    struct totals totals;
};

struct report {
    const char *dir;   /* the directory or trace given */
    struct rank_file *files;
    size_t nfiles, files_cap;
    size_t nskipped;   /* files that could not be read, named on stderr */
    bool from_trace;   /* the files were built from an LTTng trace (report_trace.c) */
    uint64_t discarded;  /* events LTTng discarded (full buffers), trace only */
};

#define RANK_FILE_PATTERN "nccltap-*.json"

/* The paths of the per-rank files in `dir`, sorted: a NULL-terminated
 * malloc'ed array of *n paths, or NULL (errno set) when `dir` cannot be read. */
char **report_files(const char *dir, size_t *n);
void report_files_free(char **files);

/* Loads every per-rank file in `dir`; a file that cannot be read or does not
 * have the expected format is named on stderr and skipped. Returns 0, or -1
 * when no file could be loaded (said on stderr). */
int report_load(const char *dir, struct report *r);
void report_free(struct report *r);

/* Adds one per-rank document to `r`, taking over the reference `root`;
 * `path` names it in messages. A document without the expected format is
 * named on stderr and counted in r->nskipped. Returns 0 or -1. */
int report_add_document(struct report *r, const char *path, json_t *root);

/* Loads an LTTng trace (a directory with a CTF `metadata` file, or one
 * holding such directories) into per-rank documents, one per traced
 * process, the same as the per-rank files the shim writes. Returns 0, or
 * -1 after saying why on stderr (report_trace.c). */
int report_load_trace(const char *path, struct report *r);

/* True when `path` holds no per-rank file but has a CTF trace at or below
 * it (report_trace.c). */
bool report_path_is_trace(const char *path);

/* ---- Derived across ranks (report_merge.c) ---- */

/* A communicator as all files together saw it. */
struct comm_summary {
    const char *id, *name, *parent;
    int nranks;
    size_t ranks_seen;   /* how many comm entries (files x ranks) named it */
};

/* Sorted by id. Returns a malloc'ed array of *n entries. */
struct comm_summary *report_comms(const struct report *r, size_t *n);

/* One rank as listed in a file's "ranks". */
struct rank_summary {
    int rank;
    const struct rank_file *file;
};

/* Sorted by rank, then host and pid. */
struct rank_summary *report_ranks(const struct report *r, size_t *n);

/* Every op row of every file, sorted by comm id, op, dtype, size class and
 * rank, so that rows to merge are adjacent. Pointers into r. */
const struct op_row **report_rows(const struct report *r, size_t *n);

/* True when two rows belong to the same merged line (comm, op, dtype, size). */
bool op_row_same_key(const struct op_row *a, const struct op_row *b);

/* bw_busbytes / time_ns.sum in GB/s (bytes per ns), 0 when untimed. */
double op_row_busbw_total(const struct op_row *row);
double op_row_algbw_total(const struct op_row *row);

/* Rows of several ranks merged into one line. */
struct op_merged {
    const struct op_row *first;    /* key fields: comm, op, dtype, size_class */
    size_t nrows;
    uint64_t calls, timed, bytes_total;
    double grouped;                /* calls-weighted mean */
    uint64_t t_sum, t_min, t_max;
    double bw_bytes, bw_busbytes;
    double p50_ns, p99_ns;         /* from the merged histograms */
    /* Spread of per-rank busbw_total over the timed rows. */
    double busbw_lo, busbw_hi;
    int busbw_lo_rank, busbw_hi_rank;
};

/* Merges rows[0..n) (same key). */
void op_merge(const struct op_row *const *rows, size_t n, struct op_merged *m);

/* Share of the file's wall time its ranks spent in NCCL calls: the sum over
 * its rows of time_us.mean x calls, divided by the group size (ops of one
 * group share one interval) and by the number of ranks the process holds
 * (their streams run side by side). 0 when the wall time is unknown. */
double rank_file_nccl_share(const struct rank_file *f);

#endif
