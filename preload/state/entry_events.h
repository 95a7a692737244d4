/* NCCL calls that are neither operations nor communicator changes, counted
 * per entry point: memory (ncclMemAlloc/Free, 2.19), buffer registration
 * (ncclCommRegister/Deregister, 2.19), windows (ncclCommWindowRegister/
 * Deregister, 2.27), device communicators (ncclDevCommCreate/Destroy,
 * 2.28.3), ncclCommSuspend/Resume (2.29.7), ncclCommRevoke (2.28.7),
 * ncclRedOpCreatePreMulSum/ncclRedOpDestroy (2.11). The table's TAP_EVENT
 * rows (abi/nccl_api.def) name them; the rank file writes those called
 * (writers/rank_file.c); entry/wrappers.c also traces each call
 * (nccltap:entry_point). Counters only: any thread, lock-free, no
 * allocation. */
#ifndef NCCLTAP_ENTRY_EVENTS_H
#define NCCLTAP_ENTRY_EVENTS_H

#include <stdatomic.h>
#include <stdint.h>

#include "abi/nccl_abi.h"

enum tap_entry_event {
#define TAP_EV_ENUM(name) TAP_EV_##name,
    NCCLTAP_NCCL_EVENTS(TAP_EV_ENUM)
#undef TAP_EV_ENUM
    TAP_EV_COUNT
};

struct tap_entry_count {
    _Atomic uint64_t calls;  /* every call that reached NCCL */
    _Atomic uint64_t failed; /* ... of which NCCL refused (not ncclSuccess nor ncclInProgress) */
};
extern struct tap_entry_count tap_entry_counts[TAP_EV_COUNT];

/* The entry point's name, "ncclCommRegister". */
const char *tap_entry_event_name(enum tap_entry_event ev);

static inline void tap_entry_event_done(enum tap_entry_event ev, ncclResult_t r)
{
    atomic_fetch_add_explicit(&tap_entry_counts[ev].calls, 1, memory_order_relaxed);
    if (r != ncclSuccess && r != ncclInProgress)
        atomic_fetch_add_explicit(&tap_entry_counts[ev].failed, 1, memory_order_relaxed);
}

#endif
