/* What each application thread keeps for the inline fast path: the last
 * communicator it looked up, its call site, its thread id, its group depth,
 * and whether it is inside a wrapper. Only the thread itself reads or
 * writes its copy (initial-exec TLS: no allocation, no lock). */
#ifndef NCCLTAP_THREAD_H
#define NCCLTAP_THREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/nccl_abi.h"

struct tap_comm;

struct tap_thread_fast {
    ncclComm_t last_handle;     /* the last communicator looked up */
    struct tap_comm *last_comm;
    uint32_t last_generation;   /* ... valid while tap_comm_generation is this */
    uint32_t tid;               /* 0 until first asked */
    int group_depth;            /* ncclGroupStart nesting */
    int busy;                   /* inside a wrapper */
    uintptr_t site_ra;          /* the last one-frame call site (or any, when off): return address */
    uint16_t site_id;           /* ... and its id */
};
extern __thread struct tap_thread_fast tap_fast __attribute__((tls_model("initial-exec")));

/* True when this thread is already inside a wrapper (NCCL calling its own
 * API, or nccltap calling NCCL): the call then goes straight through. */
static inline bool tap_reentered(void) { return tap_fast.busy; }

/* Marks the thread as inside / outside a wrapper around a real call. */
static inline void tap_enter(void) { tap_fast.busy = 1; }
static inline void tap_leave(void) { tap_fast.busy = 0; }

/* The kernel's id of this thread, remembered in tap_fast.tid. */
uint32_t tap_thread_id_slow(void);

/* In a forked child, for the one thread that survives. */
void tap_thread_after_fork(void);

#endif
