/* One rank of the bench: its CUDA device, its communicators (one per
 * thread) and what it measured, from start to end. */
#ifndef NCCLTAP_BENCH_RANK_H
#define NCCLTAP_BENCH_RANK_H

#include "options.h"
#include "rdv.h"

/* Runs rank `rank` of `world` to the end. `local_rank` picks the device
 * (local_rank mod device count). Returns 0, or BENCH_EXIT_WRONG when
 * --check found wrong elements (on any rank); dies on any error. */
int rank_run(const struct bench_opts *o, struct rdv *rdv, int rank, int world, int local_rank);

#endif
