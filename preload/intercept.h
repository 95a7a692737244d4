/* The hot path of a wrapped NCCL operation: record what it is, time it when
 * the policy says so, hand the record to the reducer. Never blocks, never
 * allocates (but once per new communicator or CUDA context), never takes a
 * lock the reducer holds. */
#ifndef NCCLTAP_INTERCEPT_H
#define NCCLTAP_INTERCEPT_H

#include <stdbool.h>

#include "abi/nccl_abi.h"
#include "nccl_ops.h"
#include "op_record.h"

struct tap_call {
    struct tap_record rec;
};

/* True when this thread is already inside a wrapper (NCCL calling its own
 * API, or nccltap calling NCCL): the call then goes straight through. */
extern __thread int tap_thread_busy __attribute__((tls_model("initial-exec")));
static inline bool tap_reentered(void) { return tap_thread_busy; }

/* Before the real call. False when there is nothing to record (no
 * communicator): then call through and do not call tap_op_end. */
bool tap_op_begin(struct tap_call *c, enum tap_op op, ncclComm_t comm, cudaStream_t stream,
                  size_t count, int dtype, int peer, int redop);
/* After it, with what NCCL returned. */
void tap_op_end(struct tap_call *c, ncclResult_t result);

/* Around ncclGroupStart / ncclGroupEnd / ncclGroupSimulateEnd. */
void tap_group_start_done(ncclResult_t result);
void tap_group_end_begin(void);
/* True when it closed the outermost group. */
bool tap_group_end_done(ncclResult_t result, bool simulated);

/* Marks the thread as inside / outside a wrapper around a real call. */
static inline void tap_enter(void) { tap_thread_busy = 1; }
static inline void tap_leave(void) { tap_thread_busy = 0; }

/* Hands a record to the reducer; counts it as dropped when the queue is full. */
void tap_submit(const struct tap_record *rec);

/* In a forked child, for the one thread that survives. */
void tap_intercept_after_fork(void);

#endif
