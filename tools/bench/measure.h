/* Measuring one op at one size on one thread. */
#ifndef NCCLTAP_BENCH_MEASURE_H
#define NCCLTAP_BENCH_MEASURE_H

#include "worker.h"

/* Warms up, waits for all ranks, then makes --iters timed calls and stores
 * this thread's wall time, event durations and (with --per-call) every
 * call's duration in `res`. */
void measure_step(struct worker *w, enum bench_op op, size_t count, struct step_result *res);

#endif
