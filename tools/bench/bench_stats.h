/* The numbers reported for one op and size, from what the threads stored. */
#ifndef NCCLTAP_BENCH_STATS_H
#define NCCLTAP_BENCH_STATS_H

#include "rank_ctx.h"

struct step_stats {
    long calls;             /* per NCCL function, all threads of the rank */
    double wall_us;         /* host time per call, mean over threads */
    double wall_algbw;      /* GB/s from wall_us */
    double wall_busbw;
    double event_us;        /* mean of per-call event durations */
    double event_algbw;     /* GB/s from event_us */
    double event_busbw;
};

/* The numbers of variant `v` (VAR_*), which must have run. */
void step_stats(const struct rank_ctx *rk, enum bench_op op,
                const struct step_result *res, int v, struct step_stats *st);

#endif
