/* What the report says of the run as a whole, computed once for every
 * renderer (text, JSON, CSV): the header's figures, the op tables' merged
 * lines, where the NCCL time goes, each process's time in NCCL and calls,
 * the totals, the call sites. It reads the document model and computes;
 * it never reads files or formats text. summary.c */
#ifndef NCCLTAP_CLI_REPORT_SUMMARY_H
#define NCCLTAP_CLI_REPORT_SUMMARY_H

#include "callsites.h"
#include "findings.h"
#include "merge.h"
#include "mismatch.h"
#include "settings.h"
#include "entry_points.h"
#include "onesided.h"
#include "steps.h"
#include "model.h"
#include "os_interference.h"

/* What the user asked to see (nccltap report --comm, --op, --top). */
struct summary_options {
    const char *comm;    /* only this communicator (its id or name); NULL: all */
    const char *op;      /* only this operation ("AllReduce"); NULL: all */
    size_t top;          /* lines in "where the time goes" */
};

/* One line of the op tables: a (communicator, op, dtype, size class)
 * merged over the ranks that have it. */
struct line_summary {
    struct op_merged m;
    const struct comm_summary *comm;  /* NULL: in no file's communicator list */
    /* Calls and timed calls per rank (per row merged): they differ when a
     * rank made fewer calls. */
    uint64_t calls_min, calls_max, timed_min, timed_max;
    double bytes;      /* mean S per call */
    /* Over the timed calls other than each rank's first (op_merged); NaN
     * when there are none. Bandwidths are the totals' (bytes over time). */
    double us_mean, us_min, us_p50, us_p99, us_max;
    double algbw_gbs, busbw_gbs;
    /* NCCL time over all its ranks: each rank's calls x its mean time (the
     * first timed call, connection set-up, kept apart as the row's times
     * are; a group's time shared among its ops), as call sites count it.
     * 0 when no call but the first was timed. */
    double time_us;
    double pct_nccl;   /* of the run's NCCL time (every line, filters aside), 0..100 */
    /* Of the processes' wall time: pct_nccl of the time they spent in NCCL
     * (the union of their ops' intervals, so overlapping ops count once);
     * NaN when that is unknown. The lines add up to at most 100. */
    double pct_wall;
    /* The slowest rank's first timed call exceeds 10 x p50: the text shows
     * it apart, with a footnote. */
    bool first_far;
    /* The rank of the lowest busbw (m.busbw_lo_rank) waited at this
     * communicator's collectives for a late rank (it is not a straggler,
     * and its mean wait is over the clocks' threshold): its busbw is low
     * because its calls include that wait, not because its link is slow. */
    bool lo_rank_waited;
    /* Its op and size class are a slow transfer or below-expected finding's
     * (on its communicator where the finding names one). */
    bool slow;
};

/* One op table (one communicator's lines, lines[from .. from + n)), and
 * what its one footnote says. */
struct table_summary {
    size_t from, n;
    size_t first_far;          /* lines whose first call exceeds 10 x p50 */
    size_t worst_first;        /* of those, the one with the slowest first call (index into lines) */
    size_t lo_waited;          /* lines with lo_rank_waited */
};

/* One process: its ranks' calls and time in NCCL (a process that drives
 * several GPUs holds several ranks, whose calls and time are its). */
struct process_summary {
    const struct rank_file *file;
    int rank;              /* its lowest rank; -1 when it lists none */
    uint64_t calls;        /* NCCL calls it made (totals.calls) */
    double nccl_time_us;   /* share x wall time (merge.h); NaN when unknown */
    double share;          /* of its wall time, 0..1; NaN when unknown */
    struct nccl_time nccl; /* what nccl_time_us is made of (merge.h) */
    /* Its ranks' wait at their collectives for the last to arrive (the
     * latest start minus theirs, crossrank's xr_wait), summed: part of
     * nccl_time_us, time spent waiting for others. NaN: no per-op records. */
    double wait_us;
    /* nccl_time_us less wait_us, at least 0: its time in NCCL not spent
     * waiting for others (transferring, or its own launch work); NaN when
     * either is unknown. */
    double transfer_us;
    bool late;             /* one of its ranks is a straggler finding: the others wait for it */
};

/* nccltap-bench's own busbw for one op and size (r->bench): the median
 * over the ranks that gave one. */
struct bench_summary {
    const char *op;          /* interned, as the report names ops */
    uint64_t bytes;
    double busbw_gbs;
    size_t nranks;
};

struct report_summary {
    struct summary_options options;
    double wall_s;           /* the longest process's */
    double nccl_share;       /* the mean of the processes' shares; NaN: none known */
    size_t not_final;        /* files written before their process ended */
    size_t simulated;        /* files whose NCCL was nccltap's simulator */
    struct totals totals;    /* summed over the files */

    struct comm_summary *comms;   /* those the filters keep, sorted by id (merge.h) */
    size_t ncomms;
    struct comm_summary *all_comms;  /* every one, filters aside, sorted by id */
    size_t nall_comms;
    struct rank_summary *ranks;   /* every rank, by rank, then host and pid (merge.h) */
    size_t nranks;
    /* The per-rank statistics rows the filters keep, sorted as report_rows
     * sorts them (pointers into the document). */
    const struct op_row **rows;
    size_t nrows;
    /* The lines the filters keep, by communicator id, op, dtype and size. */
    struct line_summary *lines;
    size_t nlines;
    size_t *top;             /* indices into lines, by time_us descending */
    size_t ntop;             /* at most options.top; lines with no time left out */
    double nccl_time_us;     /* the sum of every line's time_us, filters aside */

    struct process_summary *procs;  /* one per file, in r->files' order */
    size_t nprocs;
    size_t *by_rank;         /* indices into procs, by rank, then host and pid */
    /* The spread of nccl_time_us over the processes that know it, and
     * which process is at each end; lo, hi NULL when none knows it. */
    const struct process_summary *time_lo, *time_hi;
    double time_mean_us;
    uint64_t calls_max;      /* the most calls any process made */
    size_t fewer_calls;      /* processes that made fewer than calls_max */

    struct callsite_summary callsites;
    struct os_interference os;  /* analysed when the trace has kernel events */
    struct table_summary *tables;  /* the op tables, in lines' order */
    size_t ntables;
    struct mismatches mismatches;  /* collectives the ranks issued differently (mismatch.h) */
    struct settings_drift settings;  /* NCCL settings that differ between ranks (settings.h) */
    struct steps steps;         /* each communicator's steps (steps.h) */
    struct onesided onesided;   /* puts, signals and waits (onesided.h) */
    struct entry_points entry_points;  /* NCCL's other calls (entry_points.h) */
    struct findings findings;   /* what is wrong, worst first (findings.h) */
    struct bench_summary *bench;  /* by op, then bytes; NULL: no bench results beside the run */
    size_t nbench;
};

void report_summarize(const struct report *r, const struct summary_options *o,
                      struct report_summary *s);
void report_summary_free(struct report_summary *s);

#endif
