/* Measuring one op at one size on one thread. */
#ifndef NCCLTAP_BENCH_MEASURE_H
#define NCCLTAP_BENCH_MEASURE_H

#include "worker_ctx.h"

/* The call of one variant (VAR_*): out of place, the worker's send and
 * receive buffers; in place, both in its receive buffer (op_layout). */
void measure_call(const struct worker *w, enum bench_op op, size_t count, int variant,
                  struct op_call *c);

/* `n` calls of the op, in one ncclGroupStart/End when `grouped`, after
 * `work_us` of the thread's CPU time spent computing, then sleeping
 * `delay_us`. */
void measure_issue(enum bench_op op, const struct op_call *c, int n, bool grouped, int delay_us, int work_us);

/* Warms up, waits for all ranks, then makes --iters timed calls of the
 * variant and stores this thread's wall time, event durations and (with
 * --per-call) every call's duration in `res`. */
void measure_step(struct worker *w, enum bench_op op, size_t count, int variant,
                  struct variant_result *res);

#endif
