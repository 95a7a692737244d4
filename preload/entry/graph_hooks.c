/* The CUDA driver's graph entry points, wrapped so that each launch of an
 * executable graph that holds captured NCCL ops is counted (graph_table.h):
 * a captured op runs at every launch with no NCCL call to see.
 *
 * Each wrapper calls the next definition (the driver) and returns exactly
 * what it returned; it notes what happened only on success. What reaches
 * these wrappers: calls resolved by the dynamic linker (a program or
 * library linked against libcuda.so.1). Not: cudart's (cudaGraphLaunch),
 * which gets the driver's entry points through cuGetProcAddress, nor a
 * dlsym on the driver's own handle (README, CUDA graphs).
 *
 * Any application thread. Launch is the hot path of a replayed graph: one
 * lock-free lookup and an atomic add, no allocation. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

#include "abi/cuda_abi.h"
#include "base/log.h"
#include "state/graph_table.h"

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

/* Prototypes and pointer types from the table, so that a definition
 * that disagrees with it does not compile. */
#define TAP_GRAPH_PROTOTYPE(name, ret, params, args) TAP_EXPORT ret name params; typedef ret(*name##_fn) params;
NCCLTAP_CUDA_GRAPH_API(TAP_GRAPH_PROTOTYPE)
#undef TAP_GRAPH_PROTOTYPE

#define TAP_NEXT(name)                                                   \
    static _Atomic(void *) name##_next;                                  \
    name##_fn next = (name##_fn)next_fn(&name##_next, #name);            \
    if (!next)                                                           \
        return CUDA_ERROR_NOT_SUPPORTED

TAP_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
    TAP_NEXT(cuGraphInstantiateWithFlags);
    CUresult r = next(phGraphExec, hGraph, flags);
    if (r == CUDA_SUCCESS)
        tap_graph_instantiated(*phGraphExec, hGraph);
    return r;
}

TAP_EXPORT CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    TAP_NEXT(cuGraphLaunch);
    CUresult r = next(hGraphExec, hStream);
    if (r == CUDA_SUCCESS)
        tap_graph_launched(hGraphExec);
    return r;
}

TAP_EXPORT CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
                                         CUgraphExecUpdateResultInfo *resultInfo)
{
    TAP_NEXT(cuGraphExecUpdate_v2);
    CUresult r = next(hGraphExec, hGraph, resultInfo);
    if (r == CUDA_SUCCESS)
        tap_graph_updated(hGraphExec, hGraph);
    return r;
}

TAP_EXPORT CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    TAP_NEXT(cuGraphExecDestroy);
    CUresult r = next(hGraphExec);
    if (r == CUDA_SUCCESS)
        tap_graph_exec_destroyed(hGraphExec);
    return r;
}

TAP_EXPORT CUresult cuGraphDestroy(CUgraph hGraph)
{
    TAP_NEXT(cuGraphDestroy);
    CUresult r = next(hGraph);
    if (r == CUDA_SUCCESS)
        tap_graph_forget(hGraph);
    return r;
}
