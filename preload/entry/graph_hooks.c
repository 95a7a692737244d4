/* The CUDA driver's graph entry points, wrapped so that each launch of an
 * executable graph that holds captured NCCL ops is counted (graph_table.h):
 * a captured op runs at every launch with no NCCL call to see.
 *
 * Each wrapper calls the next definition (the driver) and returns exactly
 * what it returned; it notes what happened only on success. Two doors
 * lead here: the exported wrappers below, reached by calls the dynamic
 * linker resolves (a program or library linked against libcuda.so.1),
 * which call the next definition; and the bodies (graph_hooks.h) called by
 * the wrappers nccltap hands out for cuGetProcAddress (proc_address.c:
 * cudart's way), with the pointer the driver returned there.
 *
 * Any application thread. Launch is the hot path of a replayed graph: one
 * lock-free lookup and an atomic add, no allocation; with
 * NCCLTAP_GRAPH_TIMING=all also two driver calls per op and the exec's
 * launch lock, which only another thread launching the same executable
 * graph at the same moment can hold. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

#include "abi/cuda_abi.h"
#include "base/config.h"
#include "base/log.h"
#include "base/monotonic.h"
#include "base/mpmc_queue.h"
#include "cuda/gpu_timing.h"
#include "entry/graph_hooks.h"
#include "state/graph_table.h"
#include "state/shared.h"

#define TAP_EXPORT __attribute__((visibility("default")))

/* The driver's function after this one, resolved once; a driver that lacks
 * it (it cannot be what the caller linked against) gets an error back. */
static void *next_fn(_Atomic(void *) *cache, const char *name)
{
    void *fn = atomic_load_explicit(cache, memory_order_acquire);
    if (!fn) {
        fn = dlsym(RTLD_NEXT, name);
        if (!fn)
            tap_log("%s: no CUDA driver defines it after nccltap; returning CUDA_ERROR_NOT_SUPPORTED", name);
        atomic_store_explicit(cache, fn, memory_order_release);
    }
    return fn;
}

/* Prototypes from the table, so that a definition that disagrees with it
 * does not compile. */
#define TAP_GRAPH_PROTOTYPE(name, ret, params, args) TAP_EXPORT ret name params;
NCCLTAP_CUDA_GRAPH_API(TAP_GRAPH_PROTOTYPE)
#undef TAP_GRAPH_PROTOTYPE

#define TAP_NEXT(name)                                                   \
    static _Atomic(void *) name##_next;                                  \
    name##_fn next = (name##_fn)next_fn(&name##_next, #name);            \
    if (!next)                                                           \
        return CUDA_ERROR_NOT_SUPPORTED

/* The instantiations: each exec made from a graph holding captured ops is
 * followed (graph_table.h). */
TAP_EXPORT CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                       char *logBuffer, size_t bufferSize)
{
    TAP_NEXT(cuGraphInstantiate);
    return tap_graph_instantiate_done(next(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize), phGraphExec,
                                      hGraph);
}

TAP_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                          char *logBuffer, size_t bufferSize)
{
    TAP_NEXT(cuGraphInstantiate_v2);
    return tap_graph_instantiate_done(next(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize), phGraphExec,
                                      hGraph);
}

TAP_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
    TAP_NEXT(cuGraphInstantiateWithFlags);
    return tap_graph_instantiate_done(next(phGraphExec, hGraph, flags), phGraphExec, hGraph);
}

TAP_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                 CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    TAP_NEXT(cuGraphInstantiateWithParams);
    return tap_graph_instantiate_done(next(phGraphExec, hGraph, instantiateParams), phGraphExec, hGraph);
}

TAP_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                      CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    TAP_NEXT(cuGraphInstantiateWithParams_ptsz);
    return tap_graph_instantiate_done(next(phGraphExec, hGraph, instantiateParams), phGraphExec, hGraph);
}

/* Launches back to back take a pair per timed op each, faster than the
 * reducer grows the pool: this many launches' pairs are made at
 * instantiation (about CUDA's launch queue's depth). */
#define LAUNCHES_AHEAD 1024

CUresult tap_graph_instantiate_done(CUresult r, CUgraphExec *phGraphExec, CUgraph hGraph)
{
    if (r != CUDA_SUCCESS || !phGraphExec)
        return r;
    tap_graph_instantiated(*phGraphExec, hGraph);
    const struct tap_graph_slot *s = tap_graph_slot_of(*phGraphExec);
    if (s && s->timed && tap_config.graph_timing == TAP_GRAPH_TIMING_ALL) {
        uint64_t want = (uint64_t)s->nops * 2 * LAUNCHES_AHEAD;
        tap_pool_reserve(true, want > UINT32_MAX ? UINT32_MAX : (uint32_t)want);
    }
    return r;
}

static bool set_pair(CUgraphExec x, const struct tap_graph_op *st, CUevent start, CUevent end)
{
    return tap_cu.cuGraphExecEventRecordNodeSetEvent(x, (CUgraphNode)st->start_node, start) == CUDA_SUCCESS &&
           tap_cu.cuGraphExecEventRecordNodeSetEvent(x, (CUgraphNode)st->end_node, end) == CUDA_SUCCESS;
}

/* Before a timed launch: each timed op's nodes get a fresh pair from the
 * pool (ev[2i], ev[2i+1]), so that no launch records over another's
 * events still unread; one with no pair free gets its scratch pair,
 * recorded and never read (ev NULL, as for an op without nodes). */
static void arm(CUgraphExec x, CUstream stream, const struct tap_graph_slot *s, struct tap_event **ev)
{
    struct event_pool *p = tap_pool_of_stream(stream);
    for (uint32_t i = 0; i < s->nops; i++) {
        const struct tap_graph_op *st = &s->ops[i];
        ev[2 * i] = ev[2 * i + 1] = NULL;
        if (!st->start_node)
            continue;
        struct tap_event *a = p ? tap_event_take(p, true) : NULL, *b = a ? tap_event_take(p, true) : NULL;
        if (b && set_pair(x, st, a->ev, b->ev)) {
            ev[2 * i] = a;
            ev[2 * i + 1] = b;
            continue;
        }
        if (a)
            tap_event_give(a);
        if (b)
            tap_event_give(b);
        set_pair(x, st, (CUevent)st->scratch_start, (CUevent)st->scratch_end);
    }
}

/* After a timed launch (number `replay` of the exec): a record per armed
 * op; the others are untimed. */
static void submit(const struct tap_graph_slot *s, CUstream stream, struct tap_event **ev, uint64_t replay)
{
    struct mpmc_queue *q = atomic_load_explicit(&tap_ring, memory_order_acquire);
    uint64_t now = tap_monotonic_ns();
    for (uint32_t i = 0; i < s->nops; i++) {
        if (!ev[2 * i]) {
            atomic_fetch_add_explicit(&tap_graph_untimed, 1, memory_order_relaxed);
            continue;
        }
        struct tap_record rec = {.kind = TAP_REC_OP};
        struct tap_op_rec *r = &rec.u.op;
        *r = s->ops[i].rec;
        r->flags = TAP_OPF_CAPTURED | TAP_OPF_TIMED | TAP_OPF_REPLAY | (s->ops[i].rec.flags & TAP_OPF_TAGGED);
        r->stream = stream;
        r->ev_start = ev[2 * i];
        r->ev_end = ev[2 * i + 1];
        r->replay = (uint32_t)replay;  /* modulo 2^32: op_record.h */
        r->enqueue_ns = now;
        r->timing_cost_ns = 0;
        if (!q || !mpmc_push(q, &rec, sizeof rec)) {
            tap_event_give(ev[2 * i]);
            tap_event_give(ev[2 * i + 1]);
            atomic_fetch_add_explicit(&tap_graph_untimed, 1, memory_order_relaxed);
        }
    }
}

static bool time_launches(const struct tap_graph_slot *s)
{
    return s->timed && tap_config.graph_timing == TAP_GRAPH_TIMING_ALL &&
           tap_gpu_ready() && tap_cu.cuGraphExecEventRecordNodeSetEvent &&
           !atomic_load_explicit(&tap_closed, memory_order_relaxed);
}

CUresult tap_graph_launch(cuGraphLaunch_fn next, CUgraphExec hGraphExec, CUstream hStream, CUstream own)
{
    struct tap_graph_slot *s = tap_graph_slot_of(hGraphExec);
    if (!s)
        return next(hGraphExec, hStream);
    if (!time_launches(s)) {
        CUresult r = next(hGraphExec, hStream);
        if (r == CUDA_SUCCESS) {
            tap_graph_launched(s);
            if (tap_config.graph_timing == TAP_GRAPH_TIMING_ALL)
                atomic_fetch_add_explicit(&tap_graph_untimed, s->nops, memory_order_relaxed);
        }
        return r;
    }
    pthread_mutex_lock(&s->launch_lock);
    arm(hGraphExec, own, s, s->ev);
    CUresult r = next(hGraphExec, hStream);
    if (r == CUDA_SUCCESS) {
        submit(s, own, s->ev, tap_graph_launched(s));
    } else {
        for (uint32_t i = 0; i < 2 * s->nops; i++)
            if (s->ev[i])
                tap_event_give(s->ev[i]);
    }
    pthread_mutex_unlock(&s->launch_lock);
    return r;
}

TAP_EXPORT CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    TAP_NEXT(cuGraphLaunch);
    return tap_graph_launch(next, hGraphExec, hStream, hStream);
}

/* The per-thread default stream's launch: a NULL stream is that stream. */
TAP_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    TAP_NEXT(cuGraphLaunch_ptsz);
    return tap_graph_launch(next, hGraphExec, hStream, hStream ? hStream : CU_STREAM_PER_THREAD);
}

CUresult tap_graph_update_done(CUresult r, CUgraphExec hGraphExec, CUgraph hGraph)
{
    if (r == CUDA_SUCCESS)
        tap_graph_updated(hGraphExec, hGraph);
    return r;
}

TAP_EXPORT CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
                                      int *updateResult_out)
{
    TAP_NEXT(cuGraphExecUpdate);
    return tap_graph_update_done(next(hGraphExec, hGraph, hErrorNode_out, updateResult_out), hGraphExec, hGraph);
}

TAP_EXPORT CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
                                         CUgraphExecUpdateResultInfo *resultInfo)
{
    TAP_NEXT(cuGraphExecUpdate_v2);
    return tap_graph_update_done(next(hGraphExec, hGraph, resultInfo), hGraphExec, hGraph);
}

static CUresult destroy_graph(CUgraph g)
{
    TAP_NEXT(cuGraphDestroy);
    return next(g);
}

/* The graph its timed nodes are named by lives as long as the exec: a
 * graph the application destroyed before is destroyed now. */
CUresult tap_graph_exec_destroy(cuGraphExecDestroy_fn next, cuGraphDestroy_fn destroy, CUgraphExec hGraphExec)
{
    CUresult r = next(hGraphExec);
    const void *waited = r == CUDA_SUCCESS ? tap_graph_exec_destroyed(hGraphExec) : NULL;
    if (waited)
        (destroy ? destroy : destroy_graph)((CUgraph)waited);
    return r;
}

TAP_EXPORT CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    TAP_NEXT(cuGraphExecDestroy);
    return tap_graph_exec_destroy(next, NULL, hGraphExec);
}

/* A graph whose nodes name an exec's timed nodes waits for that exec
 * (graph_table.h): the application never uses the handle again, and
 * cuGraphExecEventRecordNodeSetEvent needs it. */
CUresult tap_graph_destroy(cuGraphDestroy_fn next, CUgraph hGraph)
{
    if (hGraph && tap_graph_forget(hGraph))
        return CUDA_SUCCESS;
    return next(hGraph);
}

TAP_EXPORT CUresult cuGraphDestroy(CUgraph hGraph)
{
    TAP_NEXT(cuGraphDestroy);
    return tap_graph_destroy(next, hGraph);
}
