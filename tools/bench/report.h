/* The table on rank 0's stdout, printed as the run goes. Its columns are
 * nccl-tests' (size, count, type, redop, root, then time, algbw, busbw and
 * #wrong out of place and in place), in its formats, so that lines compare
 * one to one; the bench's own columns follow: the op, and the mean of the
 * calls' own event durations out of place and in place. */
#ifndef NCCLTAP_BENCH_REPORT_H
#define NCCLTAP_BENCH_REPORT_H

#include "rank_ctx.h"

/* Each prints on rank 0 only. */
void report_header(const struct rank_ctx *rk);
void report_skipped(const struct rank_ctx *rk, enum bench_op op, size_t size);
void report_step(const struct rank_ctx *rk, enum bench_op op, const struct step_result *res);
/* nccl-tests' closing lines: results with wrong elements, and the mean
 * busbw over every op, size and variant in the table. */
void report_footer(const struct rank_ctx *rk);

#endif
