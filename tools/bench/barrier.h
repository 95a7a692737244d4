/* The synchronisation of a rank's threads: among themselves, and with every
 * thread of every rank. Called from every thread of the rank; each call
 * must be made by all of them, in the same order. Dies on error. */
#ifndef NCCLTAP_BENCH_BARRIER_H
#define NCCLTAP_BENCH_BARRIER_H

#include "rank_ctx.h"

/* Before the threads start and after they have ended (rank.c's thread). */
void barrier_init(struct rank_ctx *rk);
void barrier_destroy(struct rank_ctx *rk);

/* Returns when every thread of the rank has called it. */
void barrier_threads(struct rank_ctx *rk);

/* Returns when every thread of every rank has called it; `thread` is the
 * caller's index in the rank. */
void barrier_all(struct rank_ctx *rk, int thread);

#endif
