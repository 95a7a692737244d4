/* Graphs: what a stream capture builds, instantiated into executable
 * graphs and launched on a stream.
 *
 * A graph is the chain of nodes its one capturing stream issued, in order
 * (capture across streams, which forks and joins through events, is not
 * modelled). Two kinds of node: a captured operation (the simulated NCCL's
 * collectives and sends: ncclsim_stream_capture), replayed at each launch
 * as if issued then, on the launch's stream, so with its own sequence
 * number and cross-rank rendezvous; and an event record (cuEventRecord on
 * a capturing stream), which records the event at that point of each
 * launch. Nodes are shared, counted, by the graph and every executable
 * graph instantiated from it, so either may be destroyed first, as in
 * CUDA. The driver's lock guards them; a launch runs its nodes without it
 * (a replay calls back into the driver). */
#include <stdlib.h>

#include "cuda_internal.h"

enum node_kind { NODE_OP = 1, NODE_EVENT_RECORD = 2 };

struct CUgraphNode_st {
    int refs;
    enum node_kind kind;
    struct ncclsim_node op;      /* NODE_OP */
    struct CUevent_st *event;    /* NODE_EVENT_RECORD, a reference */
};

struct node_list {
    struct CUgraphNode_st **at;
    size_t n, cap;
};

struct CUgraph_st {
    struct node_list nodes;
};

struct CUgraphExec_st {
    struct node_list nodes;
    /* The graph's nodes it was instantiated from, the handles by which
     * cuGraphExecEventRecordNodeSetEvent names its nodes (kept through
     * updates, which pair nodes by position). */
    struct node_list origin;
};

static void node_unref(struct CUgraphNode_st *nd)
{
    if (--nd->refs)
        return;
    if (nd->kind == NODE_OP && nd->op.release)
        nd->op.release(nd->op.arg);
    if (nd->event)
        sim_event_unref(nd->event);
    free(nd);
}

static void list_append(struct node_list *l, struct CUgraphNode_st *nd)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        struct CUgraphNode_st **at = realloc(l->at, cap * sizeof *at);
        if (!at)
            abort();   /* a test double out of memory: nothing useful to simulate */
        l->at = at;
        l->cap = cap;
    }
    nd->refs++;
    l->at[l->n++] = nd;
}

static void list_clear(struct node_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        node_unref(l->at[i]);
    free(l->at);
    l->at = NULL;
    l->n = l->cap = 0;
}

static void list_copy(struct node_list *to, const struct node_list *from)
{
    for (size_t i = 0; i < from->n; i++)
        list_append(to, from->at[i]);
}

static struct CUgraphNode_st *new_node(enum node_kind kind)
{
    struct CUgraphNode_st *nd = calloc(1, sizeof *nd);
    if (!nd)
        abort();
    nd->kind = kind;
    return nd;
}

struct CUgraph_st *sim_graph_new(void)
{
    struct CUgraph_st *g = calloc(1, sizeof *g);
    if (!g)
        abort();
    return g;
}

void sim_graph_add_op(struct CUgraph_st *g, const struct ncclsim_node *op)
{
    struct CUgraphNode_st *nd = new_node(NODE_OP);
    nd->op = *op;
    list_append(&g->nodes, nd);
}

void sim_graph_add_event(struct CUgraph_st *g, struct CUevent_st *ev)
{
    struct CUgraphNode_st *nd = new_node(NODE_EVENT_RECORD);
    nd->event = ev;
    ev->refs++;
    list_append(&g->nodes, nd);
}

const CUgraphNode *sim_graph_tail(struct CUgraph_st *g, size_t *n)
{
    *n = g->nodes.n ? 1 : 0;
    return g->nodes.n ? &g->nodes.at[g->nodes.n - 1] : NULL;
}

void sim_graph_free(struct CUgraph_st *g)
{
    list_clear(&g->nodes);
    free(g);
}

/* numNodes in: the room in `nodes` (NULL: only count); out: the number
 * returned, or with nodes NULL the graph's count. */
SIM_API CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
    SIM_REQUIRE_INIT();
    if (!hGraph || !numNodes)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    size_t n = hGraph->nodes.n;
    if (nodes) {
        n = n < *numNodes ? n : *numNodes;
        for (size_t i = 0; i < n; i++)
            nodes[i] = hGraph->nodes.at[i];
    }
    *numNodes = n;
    sim_unlock();
    return CUDA_SUCCESS;
}

SIM_API CUresult cuGraphDestroy(CUgraph hGraph)
{
    SIM_REQUIRE_INIT();
    if (!hGraph)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    sim_graph_free(hGraph);
    sim_unlock();
    return CUDA_SUCCESS;
}

/* CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, _UPLOAD, _DEVICE_LAUNCH,
 * _USE_NODE_PRIORITY: accepted, and mean nothing here. */
#define KNOWN_INSTANTIATE_FLAGS 0xfull

static CUresult instantiate(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
    SIM_REQUIRE_INIT();
    if (!phGraphExec || !hGraph || (flags & ~KNOWN_INSTANTIATE_FLAGS))
        return CUDA_ERROR_INVALID_VALUE;
    if (!sim_current_ctx())
        return CUDA_ERROR_INVALID_CONTEXT;
    struct CUgraphExec_st *x = calloc(1, sizeof *x);
    if (!x)
        return SIM_CUDA_ERROR_OUT_OF_MEMORY;
    sim_lock();
    list_copy(&x->nodes, &hGraph->nodes);
    list_copy(&x->origin, &hGraph->nodes);
    sim_unlock();
    *phGraphExec = x;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
                                             unsigned long long flags)
{
    return instantiate(phGraphExec, hGraph, flags);
}

/* CUDA 10's and 11's: no flags; an error node and a log, which an
 * instantiation that cannot fail here leaves empty. */
static CUresult instantiate_with_log(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                     char *logBuffer, size_t bufferSize)
{
    CUresult r = instantiate(phGraphExec, hGraph, 0);
    if (r == CUDA_SUCCESS && phErrorNode)
        *phErrorNode = NULL;
    if (logBuffer && bufferSize)
        logBuffer[0] = '\0';
    return r;
}

SIM_API CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                    char *logBuffer, size_t bufferSize)
{
    return instantiate_with_log(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

SIM_API CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                       char *logBuffer, size_t bufferSize)
{
    return instantiate_with_log(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

/* CUDA 12's: flags, the upload stream (an upload is nothing here), and
 * the result written back. */
static CUresult instantiate_with_params(CUgraphExec *phGraphExec, CUgraph hGraph,
                                        CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    if (!instantiateParams)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = instantiate(phGraphExec, hGraph, instantiateParams->flags);
    instantiateParams->hErrNode_out = NULL;
    instantiateParams->result_out = r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
    return r;
}

SIM_API CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                              CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    return instantiate_with_params(phGraphExec, hGraph, instantiateParams);
}

/* The per-thread default stream's twin: the same here, where that stream
 * is simulated by the legacy one (cuda_stream.c). */
SIM_API CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
                                                   CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    return instantiate_with_params(phGraphExec, hGraph, instantiateParams);
}

/* Same topology (here: the same chain of node kinds) is all an update
 * needs; the parameters (which op, which event) are taken from hGraph. */
static CUresult update(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo *resultInfo)
{
    CUresult r = CUDA_SUCCESS;
    resultInfo->result = CU_GRAPH_EXEC_UPDATE_SUCCESS;
    resultInfo->errorNode = resultInfo->errorFromNode = NULL;
    sim_lock();
    const struct node_list *to = &hGraphExec->nodes, *from = &hGraph->nodes;
    if (to->n != from->n) {
        resultInfo->result = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
        r = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
    for (size_t i = 0; r == CUDA_SUCCESS && i < to->n; i++) {
        if (to->at[i]->kind != from->at[i]->kind) {
            resultInfo->result = CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
            resultInfo->errorNode = from->at[i];
            resultInfo->errorFromNode = to->at[i];
            r = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
        }
    }
    if (r == CUDA_SUCCESS) {
        struct node_list fresh = {0};
        list_copy(&fresh, from);
        list_clear(&hGraphExec->nodes);
        hGraphExec->nodes = fresh;
    }
    sim_unlock();
    return r;
}

SIM_API CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
                                      CUgraphExecUpdateResultInfo *resultInfo)
{
    SIM_REQUIRE_INIT();
    if (!hGraphExec || !hGraph || !resultInfo)
        return CUDA_ERROR_INVALID_VALUE;
    return update(hGraphExec, hGraph, resultInfo);
}

/* CUDA 10.2's: the failing node and the result in two out-parameters. */
SIM_API CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
                                   int *updateResult_out)
{
    SIM_REQUIRE_INIT();
    if (!hGraphExec || !hGraph || !hErrorNode_out || !updateResult_out)
        return CUDA_ERROR_INVALID_VALUE;
    CUgraphExecUpdateResultInfo info;
    CUresult r = update(hGraphExec, hGraph, &info);
    *hErrorNode_out = info.errorNode;
    *updateResult_out = info.result;
    return r;
}

/* The event an event-record node of the executable graph records from
 * its next launch on; the graph and launches already made are unchanged. */
SIM_API CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
    SIM_REQUIRE_INIT();
    if (!hGraphExec || !hNode || !event)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    for (size_t i = 0; i < hGraphExec->origin.n; i++) {
        struct CUgraphNode_st *cur = hGraphExec->nodes.at[i];
        if (hGraphExec->origin.at[i] != hNode || cur->kind != NODE_EVENT_RECORD)
            continue;
        /* The exec's own copy of the node: the graph's is not changed. */
        struct CUgraphNode_st *own = new_node(NODE_EVENT_RECORD);
        own->refs = 1;
        own->event = event;
        event->refs++;
        hGraphExec->nodes.at[i] = own;
        node_unref(cur);
        r = CUDA_SUCCESS;
        break;
    }
    sim_unlock();
    return r;
}

SIM_API CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    SIM_REQUIRE_INIT();
    if (!hGraphExec)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    list_clear(&hGraphExec->nodes);
    list_clear(&hGraphExec->origin);
    sim_unlock();
    free(hGraphExec);
    return CUDA_SUCCESS;
}

static CUresult launch(CUgraphExec hGraphExec, CUstream hStream)
{
    SIM_REQUIRE_INIT();
    if (!hGraphExec)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s = sim_stream_get(hStream, -1);
    if (!s)
        return CUDA_ERROR_INVALID_CONTEXT;
    /* A launch captured into another graph (a child graph) is not modelled. */
    struct node_list run = {0};
    sim_lock();
    int capturing = s->capturing;
    if (!capturing)
        list_copy(&run, &hGraphExec->nodes);
    sim_unlock();
    if (capturing)
        return SIM_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    for (size_t i = 0; i < run.n; i++) {
        struct CUgraphNode_st *nd = run.at[i];
        if (nd->kind == NODE_OP) {
            nd->op.replay(nd->op.arg, hStream);
        } else {
            sim_lock();
            sim_queue_event(s, nd->event);
            sim_unlock();
        }
    }
    sim_lock();
    list_clear(&run);
    sim_unlock();
    return CUDA_SUCCESS;
}

SIM_API CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    return launch(hGraphExec, hStream);
}

/* NULL is the per-thread default stream, simulated by the legacy one. */
SIM_API CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    return launch(hGraphExec, hStream ? hStream : SIM_STREAM_PER_THREAD);
}
