/* Analyses across ranks: communicators, ranks, and op rows merged per
 * (communicator, op, dtype, size class). They read the document model and
 * compute; they never read files or format text, so that the text and the
 * JSON report say the same thing. merge.c */
#ifndef NCCLTAP_CLI_REPORT_MERGE_H
#define NCCLTAP_CLI_REPORT_MERGE_H

#include "model.h"

/* A communicator as all files together saw it. */
struct comm_summary {
    const char *id, *name, *parent;
    int nranks;
    size_t ranks_seen;   /* how many comm entries (files x ranks) named it */
    /* The longest init time over its ranks (the whole communicator waits
     * for it), and that rank; NaN when no rank's is known. */
    double init_ms;
    int init_rank;
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

/* The row's NCCL time: its calls x its mean time (the first call kept
 * apart, as its times are), a group's time shared among its ops; 0 when
 * no call but the first was timed. What "where the time goes" and call
 * sites add up. */
double op_row_time_us(const struct op_row *row);

/* Rows of several ranks merged into one line. */
struct op_merged {
    const struct op_row *first;    /* key fields: comm, op, dtype, size_class */
    size_t nrows;
    uint64_t calls, timed, bytes_total;
    uint64_t captured, executions; /* CUDA graphs: op_row's */
    double grouped;                /* calls-weighted mean */
    /* The slowest of the ranks' first timed calls (kept apart), and its
     * rank; NaN when none was timed. */
    double first_us;
    int first_rank;
    /* Over the t_count timed calls other than each rank's first. */
    uint64_t t_count;
    uint64_t t_sum, t_min, t_max;
    double bw_bytes, bw_busbytes;
    double p50_ns, p99_ns;         /* from the merged histograms */
    /* Spread of per-rank busbw_total over the timed rows. */
    double busbw_lo, busbw_hi;
    int busbw_lo_rank, busbw_hi_rank;
};

/* Merges rows[0..n) (same key). */
void op_merge(const struct op_row *const *rows, size_t n, struct op_merged *m);

/* The time a process was in NCCL (README, Outputs): the union of its
 * operations' intervals over its wall time, never above 1. Timed and
 * stamped calls give their intervals (nccl_busy_s). Calls counted with
 * neither (NCCLTAP_TIMING=off, no event free, files of nccltap before it
 * stamped) are estimated: each at its row's mean time, or its row's first
 * call's when that is all there is, a group once; they are taken to overlap
 * the way the others do, so the union is scaled by (known time +
 * estimated time) / known time. Calls of rows with no timed call at all
 * cannot be estimated: they are counted in `unestimated_calls`. */
struct nccl_time {
    double busy_s;             /* the union of the timed intervals */
    double timed_s;            /* their durations summed */
    double untimed_est_s;      /* the estimated time of the calls not timed */
    uint64_t unestimated_calls;
    double share;              /* of the wall time, 0..1; NaN when unknown */
};
void rank_file_nccl_time(const struct rank_file *f, struct nccl_time *t);

/* rank_file_nccl_time's share: NaN when the file cannot say (nothing timed
 * while there were calls, no wall time, a file before nccl_busy_s). */
double rank_file_nccl_share(const struct rank_file *f);

#endif
