/* What the driver's graph entry points do under nccltap, given the
 * driver's function to call (`next`): shared by the exported wrappers
 * (graph_hooks.c, for calls the dynamic linker resolves) and those handed
 * out for cuGetProcAddress (proc_address.c). Each returns the driver's
 * result unchanged. Any application thread (graph_hooks.c says what each
 * costs). */
#ifndef NCCLTAP_ENTRY_GRAPH_HOOKS_H
#define NCCLTAP_ENTRY_GRAPH_HOOKS_H

#include <stddef.h>

#include "abi/cuda_abi.h"

#define TAP_GRAPH_FN_TYPE(name, ret, params, args) typedef ret(*name##_fn) params;
NCCLTAP_CUDA_GRAPH_API(TAP_GRAPH_FN_TYPE)
#undef TAP_GRAPH_FN_TYPE

/* After an instantiation returned r: its exec followed on success. */
CUresult tap_graph_instantiate_done(CUresult r, CUgraphExec *phGraphExec, CUgraph hGraph);
/* After an update returned r: launches count for hGraph's ops. */
CUresult tap_graph_update_done(CUresult r, CUgraphExec hGraphExec, CUgraph hGraph);
/* A launch on hStream; `own` is the stream that is (hStream, or for a
 * _ptsz launch on NULL the per-thread default stream). */
CUresult tap_graph_launch(cuGraphLaunch_fn next, CUgraphExec hGraphExec, CUstream hStream, CUstream own);
/* `destroy`: the driver's cuGraphDestroy for a graph that waited for the
 * exec (NULL: the next definition's). */
CUresult tap_graph_exec_destroy(cuGraphExecDestroy_fn next, cuGraphDestroy_fn destroy, CUgraphExec hGraphExec);
CUresult tap_graph_destroy(cuGraphDestroy_fn next, CUgraph hGraph);

#endif
