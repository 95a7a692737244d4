/* A communicator's shared segment: where its ranks meet at each collective.
 *
 * Collective number `seq` of a communicator uses slot seq % SIM_RING. Each
 * rank posts its arrival there (the time its stream could begin the op);
 * the op begins on every rank at the latest arrival. A slot is reused
 * SIM_RING collectives later, once every rank has read it: a rank that
 * gets that far ahead of the slowest rank waits (sleeps) in the call that
 * issues the collective, as a real application blocks once the GPU's launch
 * queue is full. A rank that never arrives (NCCLSIM_HANG_*, or a crashed
 * peer) therefore stops its peers' streams at that op, and their host
 * threads SIM_RING collectives later. */
#ifndef NCCLSIM_NCCL_SEGMENT_H
#define NCCLSIM_NCCL_SEGMENT_H

#include <stdint.h>
#include "abi/nccl_abi.h"
#include "sim_cuda_private.h"

#define SIM_RING 4096

struct sim_segment;

/* Opens communicator `id`'s segment as `rank` of `nranks`. Does not wait
 * for the other ranks. */
ncclResult_t sim_segment_attach(uint64_t id, int nranks, int rank, struct sim_segment **out);

/* Waits until every rank has attached (at most
 * NCCLSIM_RENDEZVOUS_TIMEOUT_S, then ncclSystemError). */
ncclResult_t sim_segment_wait_all(struct sim_segment *seg, const char *what);

/* Drops the caller's reference; queued collectives hold their own. */
void sim_segment_unref(struct sim_segment *seg);

/* ncclCommAbort: this rank's queued and future collectives on the segment
 * complete without waiting for the other ranks, no earlier than now. */
void sim_segment_abort(struct sim_segment *seg);

/* Takes a reference for queued work (released by sim_segment_unref). */
void sim_segment_ref(struct sim_segment *seg);

int sim_segment_nranks(const struct sim_segment *seg);

/* The one-sided signal board after the ring (nccl_signal.h), shared by the
 * ranks as the ring is; NULL for a communicator too large to have one. */
void *sim_segment_board(struct sim_segment *seg);

/* 1 and the time of ncclCommAbort (CLOCK_MONOTONIC) once aborted, else 0. */
int sim_segment_aborted(struct sim_segment *seg, uint64_t *at_ns);

/* Blocks until slot `seq` is free for `rank` (see above). */
void sim_segment_reserve(struct sim_segment *seg, int rank, uint64_t seq);

/* Sets w's gate for collective `seq` of `rank`: begin when every rank has
 * arrived; never, if `hang`. ncclSystemError if out of memory. */
ncclResult_t sim_segment_gate(struct sim_segment *seg, int rank, uint64_t seq, int hang,
                              struct ncclsim_work *w);

#endif
