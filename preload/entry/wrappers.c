/* The exported NCCL functions, generated from abi/nccl_api.def: each one
 * resolves the real function, records around it, and returns exactly what
 * the real function returned. A passive copy of nccltap (another one is
 * ahead of it, nccl/shim_copy.h) only calls through.
 *
 * A row's `kind` is pasted onto TAP_BEGIN_ / TAP_END_, which selects what
 * runs before and after the real call. TAP_OP rows carry their own
 * arguments; the (name, args) that follows is then consumed by TAP_IGNORE,
 * while TAP_COMM and TAP_GROUP rows take (name, args) to call their hooks. */
#include <stdbool.h>

#include "abi/nccl_abi.h"
#include "entry/comm_hooks.h"
#include "entry/intercept.h"
#include "entry/onesided.h"
#include "nccl/real_nccl.h"
#include "state/entry_events.h"
#include "writers/tracing.h"

#define TAP_EXPORT __attribute__((visibility("default")))
#define TAP_UNPAREN(...) __VA_ARGS__
#define TAP_IGNORE(...)

#define TAP_BEGIN_TAP_OP(op, count, dtype, peer, redop) \
    tap_op_begin(&call, op, comm, stream, count, (int)(dtype), peer, (int)(redop), \
                 (uintptr_t)__builtin_return_address(0)) TAP_IGNORE
#define TAP_END_TAP_OP(op, count, dtype, peer, redop) tap_op_end(&call, result) TAP_IGNORE

/* An nccl<Coll>Config row: the op, with its configuration's profiler tag. */
#define TAP_BEGIN_TAP_OP_CONFIG(op, count, dtype, peer, redop) \
    tap_op_begin_config(&call, op, comm, stream, count, (int)(dtype), peer, (int)(redop), \
                        (uintptr_t)__builtin_return_address(0), config) TAP_IGNORE
#define TAP_END_TAP_OP_CONFIG TAP_END_TAP_OP

#define TAP_BEGIN_TAP_COMM(name, args) tap_comm_call_begin()
#define TAP_END_TAP_COMM(name, args) (tap_leave(), tap_comm_after_##name(result, TAP_UNPAREN args))

/* Inside the call the thread is marked busy, as for TAP_COMM: NCCL's own
 * calls of its API from there (ncclMemAlloc from a window's registration)
 * are not the program's. After it, the call is counted and traced
 * (nccltap:entry_point, named as its row, pncclX as ncclX). */
#define TAP_BEGIN_TAP_EVENT(name, args) (tap_enter(), true)
#define TAP_END_TAP_EVENT(name, args)                   \
    do {                                                \
        tap_leave();                                    \
        tap_entry_event_done(TAP_EV_##name, result);    \
        TAP_TRACE(entry_point, #name, (int32_t)result); \
    } while (0)

#define TAP_BEGIN_TAP_GROUP(name, args) tap_group_before_##name()
#define TAP_END_TAP_GROUP(name, args) tap_group_after_##name(result)

/* `exported` is the name defined (ncclX or pncclX), `field` the real
 * function it calls (real_nccl.h: the same name in the NCCL), `name` the
 * row's (ncclX), which names the hooks. */
#define TAP_WRAP_AS(exported, field, name, params, args, kind) \
    TAP_EXPORT ncclResult_t exported params                  \
    {                                                        \
        const void *caller = __builtin_return_address(0);    \
        const struct real_nccl *real = real_nccl(caller);    \
        ncclResult_t (*fn) params = real->field;             \
        if (!fn && !(fn = (real = real_nccl_retry(caller))->field)) \
            return real_nccl_missing(#exported);             \
        if (real->passive || tap_reentered())                \
            return fn args;                                  \
        struct tap_call call;                                \
        (void)call;                                          \
        bool recording = TAP_BEGIN_##kind(name, args);       \
        ncclResult_t result = fn args;                       \
        if (recording)                                       \
            TAP_END_##kind(name, args);                      \
        return result;                                       \
    }

/* Each row twice: ncclX calls NCCL's ncclX, pncclX NCCL's pncclX. So a
 * profiler that wraps ncclX and calls pncclX (NCCL's profiling
 * interface) is seen once, before or after nccltap in the preload list:
 * its pncclX call reaches nccltap's pncclX, which records it, or finds
 * nccltap's ncclX already inside (tap_reentered) and only calls through;
 * never its ncclX again. */
#define TAP_WRAP(name, params, args, kind)                   \
    TAP_WRAP_AS(name, name, name, params, args, kind)        \
    TAP_WRAP_AS(p##name, p##name, name, params, args, kind)

NCCLTAP_NCCL_API(TAP_WRAP)
