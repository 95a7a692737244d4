/* The hot path of a wrapped NCCL operation: record what it is, stamp it
 * on its stream (marks, or a timed pair where the policy says so), hand
 * the record to the reducer. Never blocks, never
 * allocates (but once per new communicator or CUDA context), never takes a
 * lock the reducer holds. */
#ifndef NCCLTAP_INTERCEPT_H
#define NCCLTAP_INTERCEPT_H

#include <stdbool.h>
#include <stddef.h>

#include "abi/nccl_abi.h"
#include "state/callsite.h"
#include "state/comm_registry.h"
#include "base/config.h"
#include "base/monotonic.h"
#include "base/mpmc_queue.h"
#include "nccl/nccl_ops.h"
#include "base/op_record.h"
#include "state/shared.h"
#include "entry/thread.h"
#include "writers/tracing.h"

struct tap_call {
    struct tap_record rec;
};

static inline bool tap_op_failed(ncclResult_t result)
{
    return result != ncclSuccess && result != ncclInProgress;
}

/* The out-of-line parts of the hot path. */
struct tap_comm *tap_comm_cached_slow(ncclComm_t comm, uint32_t generation);
/* At load, before CUDA's and NCCL's own keys: the thread-exit key, most
 * often among the first 32 a process makes, whose values glibc keeps in
 * each thread's own block (setting one allocates nothing); the
 * constructors of the program's own libraries run first and may have
 * made 32 (setting one then allocates, once a thread). Loading thread. */
void tap_intercept_at_load(void);

void tap_op_begin_slow(struct tap_call *c, struct tap_comm *tc, cudaStream_t stream);
/* After a timed or captured call. */
void tap_op_end_slow(struct tap_call *c, ncclResult_t result);
void tap_submit_lost(const struct tap_record *rec);
/* The site of a new return address, remembered when it is the same for
 * every call from there. */
uint16_t tap_site_miss(uintptr_t ra);

/* The communicator of `comm`; the thread's last one is remembered. */
static inline struct tap_comm *tap_comm_cached(ncclComm_t comm)
{
    uint32_t generation = atomic_load_explicit(&tap_comm_generation, memory_order_acquire);
    if (comm == tap_fast.last_handle && generation == tap_fast.last_generation && comm)
        return tap_fast.last_comm;
    return tap_comm_cached_slow(comm, generation);
}

/* Hands a record to the reducer; counts it as dropped when the queue is full. */
static inline void tap_submit(const struct tap_record *rec)
{
    struct mpmc_queue *q = atomic_load_explicit(&tap_ring, memory_order_acquire);
    if (!q || !mpmc_push(q, rec, sizeof *rec))
        tap_submit_lost(rec);
}

/* The call site of a call whose wrapper returns to `ra`: a thread calling
 * NCCL from one place again and again finds it in one compare. */
static inline uint16_t tap_site(uintptr_t ra)
{
    return ra == tap_fast.site_ra ? tap_fast.site_id : tap_site_miss(ra);
}

/* Before the real call. False when there is nothing to record (no
 * communicator, or exit has closed the queue: counted as after_exit, with
 * no seq): then call through and do not call tap_op_end. Inline in
 * the wrappers: this and tap_op_end run on every NCCL call. `ra` is the
 * wrapper's return address: where the application called it. */
__attribute__((always_inline)) static inline bool tap_op_begin(struct tap_call *c, enum tap_op op,
                                                              ncclComm_t comm, cudaStream_t stream, size_t count,
                                                              int dtype, int peer, int redop, uintptr_t ra)
{
    struct tap_comm *tc = tap_comm_cached(comm);
    if (!tc)
        return false;
    if (__builtin_expect(atomic_load_explicit(&tap_closed, memory_order_relaxed), 0)) {
        /* Exit is writing the files: counted, not recorded. */
        atomic_fetch_add_explicit(&tap_totals.after_exit, 1, memory_order_relaxed);
        return false;
    }
    c->rec.kind = TAP_REC_OP;
    struct tap_op_rec *r = &c->rec.u.op;
    r->comm = tc;
    r->seq = atomic_fetch_add_explicit(&tc->seq, 1, memory_order_relaxed);
    r->count = count;
    r->bytes = tap_op_bytes(op, count, dtype, tc->nranks);
    r->enqueue_ns = tap_monotonic_ns();
    r->group_id = 0;
    r->stream = stream;
    r->ev_start = r->ev_end = NULL;
    r->peer = peer;
    r->redop = redop;
    r->dtype = dtype;
    r->tid = tap_fast.tid ? tap_fast.tid : tap_thread_id_slow();
    r->timing_cost_ns = 0;
    r->op = (uint8_t)op;
    r->flags = 0;
    r->site = tap_site(ra);
    if (tap_fast.group_depth > 0 || tap_config.timing != TAP_TIMING_OFF)
        tap_op_begin_slow(c, tc, stream);
    tap_fast.busy = 1;
    return true;
}

/* The userProfilerTag of a 2.31 per-call configuration, 0 where it has
 * none: NULL (the plain call), or one older than the field (its `size`
 * says how much of the struct the program has; the struct only grows). */
static inline uint64_t tap_config_tag(const ncclCollConfig_t *config)
{
    if (!config || config->size < offsetof(ncclCollConfig_t, userProfilerTag) + sizeof config->userProfilerTag)
        return 0;
    return config->userProfilerTag;
}

/* An nccl<Coll>Config call: tap_op_begin, then its configuration's
 * profiler tag, if any, on the record. */
__attribute__((always_inline)) static inline bool tap_op_begin_config(struct tap_call *c, enum tap_op op,
                                                                     ncclComm_t comm, cudaStream_t stream,
                                                                     size_t count, int dtype, int peer, int redop,
                                                                     uintptr_t ra, const ncclCollConfig_t *config)
{
    if (!tap_op_begin(c, op, comm, stream, count, dtype, peer, redop, ra))
        return false;
    uint64_t tag = tap_config_tag(config);
    if (tag) {
        c->rec.u.op.user_tag = tag;
        c->rec.u.op.flags |= TAP_OPF_TAGGED;
    }
    return true;
}

/* After it, with what NCCL returned. */
__attribute__((always_inline)) static inline void tap_op_end(struct tap_call *c, ncclResult_t result)
{
    tap_fast.busy = 0;
    if (tap_op_failed(result))
        c->rec.u.op.flags |= TAP_OPF_FAILED;
    if (c->rec.u.op.flags & (TAP_OPF_TIMED | TAP_OPF_STAMPED | TAP_OPF_CAPTURED))
        tap_op_end_slow(c, result);
    tap_submit(&c->rec);
    if (!tap_op_failed(result))
        TAP_TRACE(op_enqueue, &c->rec.u.op);
}

/* Around ncclGroupStart / ncclGroupEnd / ncclGroupSimulateEnd. */
void tap_group_start_done(ncclResult_t result);
void tap_group_end_begin(void);
/* True when it closed the outermost group. */
bool tap_group_end_done(ncclResult_t result, bool simulated);

#endif
