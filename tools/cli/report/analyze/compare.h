/* `nccltap report --compare A B`: what changed in communication between
 * two runs. Communicator ids differ between runs, so ops are matched by
 * (op, dtype, size class) over all communicators; the change is in NCCL
 * time per rank (calls x mean time, summed over the ranks, over the
 * ranks), largest first: the op that changed most is the first. Steps
 * (steps.h) are compared where both runs have them. Reads two analysed
 * runs (summary.h); called once, on the report's thread. compare.c */
#ifndef NCCLTAP_CLI_REPORT_COMPARE_H
#define NCCLTAP_CLI_REPORT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "summary.h"

/* One (op, dtype, size class) in one run; calls 0: not in it. */
struct compare_side {
    uint64_t calls;          /* over all its ranks */
    double time_us;          /* NCCL time over all its ranks (line_summary.time_us) */
    double time_per_rank_us; /* time_us over the run's ranks */
    double us_mean;          /* per call, the calls' weighted mean of the lines'; NaN unknown */
    double busbw_gbs;        /* the calls' weighted mean of the lines'; NaN unknown */
};

struct compare_op {
    const char *op, *dtype;  /* interned in A's or B's document */
    uint64_t size_class;
    double bytes;            /* mean S per call, of the side that has more calls */
    struct compare_side a, b;
    double delta_us;         /* b.time_per_rank_us - a.time_per_rank_us */
};

/* A run's steps, as one line: its communicator with the most steps. */
struct compare_steps {
    size_t nsteps, period;   /* 0: none found */
    double step_us, comm_us, wait_us, transfer_us;  /* medians */
};

struct compare {
    size_t ranks_a, ranks_b;
    double nccl_us_a, nccl_us_b;  /* NCCL time per rank, every op */
    struct compare_op *ops;  /* by |delta_us|, largest first */
    size_t nops;
    struct compare_steps steps_a, steps_b;
};

void compare_runs(const struct report_summary *a, const struct report_summary *b, struct compare *c);
void compare_free(struct compare *c);

#endif
