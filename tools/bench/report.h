/* The table on rank 0's stdout, printed as the run goes. */
#ifndef NCCLTAP_BENCH_REPORT_H
#define NCCLTAP_BENCH_REPORT_H

#include "rank.h"

/* Each prints on rank 0 only. */
void report_header(const struct rank_ctx *rk);
void report_skipped(const struct rank_ctx *rk, enum bench_op op, size_t size);
void report_step(const struct rank_ctx *rk, enum bench_op op, const struct step_result *res);

/* "2.28.3" for NCCL's version code. */
void report_version(int code, char *out, size_t len);

#endif
