/* Stream capture: a capturing stream builds a graph (cuda_graph.c) of
 * the simulated NCCL's operations and the events recorded on it; nothing
 * runs and the stream's clock does not move until the graph is launched.
 * Other work queued while capturing is dropped. */
#include "cuda_internal.h"

#include <stdbool.h>

/* Capture ids, unique in the process (lock held). */
static uint64_t last_capture_id;
/* The streams capturing now (lock held). */
static struct CUstream_st *capturing_streams;
/* The calling thread's capture mode (cuThreadExchangeStreamCaptureMode),
 * and a token that names the thread. */
static _Thread_local int thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
static _Thread_local char thread_token;

SIM_API CUresult cuThreadExchangeStreamCaptureMode(int *mode)
{
    SIM_REQUIRE_INIT();
    if (!mode || *mode < CU_STREAM_CAPTURE_MODE_GLOBAL || *mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    int old = thread_mode;
    thread_mode = *mode;
    *mode = old;
    return CUDA_SUCCESS;
}

CUresult sim_capture_unsafe_call(void)
{
    if (thread_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_SUCCESS;
    CUresult r = CUDA_SUCCESS;
    for (struct CUstream_st *s = capturing_streams; s; s = s->capture_next) {
        bool mine = s->capture_thread == &thread_token && s->capture_mode != CU_STREAM_CAPTURE_MODE_RELAXED;
        bool global = thread_mode == CU_STREAM_CAPTURE_MODE_GLOBAL && s->capture_mode == CU_STREAM_CAPTURE_MODE_GLOBAL;
        if (mine || global) {
            s->capture_invalid = 1;
            r = SIM_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
    }
    return r;
}

void sim_capture_forget(struct CUstream_st *s)
{
    for (struct CUstream_st **p = &capturing_streams; *p; p = &(*p)->capture_next)
        if (*p == s) {
            *p = s->capture_next;
            return;
        }
}

/* A stream's CUstreamCaptureStatus (lock held). */
static int capture_status(const struct CUstream_st *s)
{
    if (!s->capturing)
        return CU_STREAM_CAPTURE_STATUS_NONE;
    return s->capture_invalid ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
}

SIM_API CUresult cuStreamIsCapturing(CUstream hStream, int *captureStatus)
{
    SIM_REQUIRE_INIT();
    if (!captureStatus)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s = sim_stream_get(hStream, -1);
    if (!s)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_lock();
    *captureStatus = capture_status(s);
    sim_unlock();
    return CUDA_SUCCESS;
}

SIM_API CUresult cuStreamBeginCapture_v2(CUstream hStream, int mode)
{
    SIM_REQUIRE_INIT();
    if (mode < CU_STREAM_CAPTURE_MODE_GLOBAL || mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    /* The legacy default stream cannot be captured. */
    if (!hStream || hStream == SIM_STREAM_LEGACY)
        return SIM_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    struct CUstream_st *s = sim_stream_get(hStream, -1);
    if (!s)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult r = CUDA_SUCCESS;
    sim_lock();
    if (s->capturing) {
        r = SIM_CUDA_ERROR_ILLEGAL_STATE;
    } else {
        s->capturing = 1;
        s->capture_graph = sim_graph_new();
        s->capture_id = ++last_capture_id;
        s->capture_mode = mode;
        s->capture_thread = &thread_token;
        s->capture_invalid = 0;
        s->capture_next = capturing_streams;
        capturing_streams = s;
    }
    sim_unlock();
    return r;
}

SIM_API CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
    SIM_REQUIRE_INIT();
    if (!phGraph)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s = sim_stream_get(hStream, -1);
    if (!s)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult r = CUDA_SUCCESS;
    sim_lock();
    if (!s->capturing) {
        r = SIM_CUDA_ERROR_ILLEGAL_STATE;
    } else {
        s->capturing = 0;
        sim_capture_forget(s);
        /* An invalidated capture ends in error, and its graph is gone. */
        if (s->capture_invalid) {
            sim_graph_free(s->capture_graph);
            *phGraph = NULL;
            r = SIM_CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        } else {
            *phGraph = s->capture_graph;
        }
        s->capture_graph = NULL;
    }
    sim_unlock();
    return r;
}

/* CUDA 12's query (cuStreamGetCaptureInfo_v2): every output but the status
 * may be NULL, and is written only while the stream is capturing. The
 * dependency array is the node issued last (the capture is one chain),
 * valid until the next call on the stream. */
SIM_API CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, int *captureStatus_out, cuuint64_t *id_out,
                                           CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                           size_t *numDependencies_out)
{
    SIM_REQUIRE_INIT();
    if (!captureStatus_out)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s = sim_stream_get(hStream, -1);
    if (!s)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_lock();
    *captureStatus_out = capture_status(s);
    if (s->capturing) {
        size_t n;
        const CUgraphNode *deps = sim_graph_tail(s->capture_graph, &n);
        if (id_out)
            *id_out = s->capture_id;
        if (graph_out)
            *graph_out = s->capture_graph;
        if (dependencies_out)
            *dependencies_out = deps;
        if (numDependencies_out)
            *numDependencies_out = n;
    }
    sim_unlock();
    return CUDA_SUCCESS;
}

/* CUDA 11's: status and id. */
SIM_API CUresult cuStreamGetCaptureInfo(CUstream hStream, int *captureStatus_out, cuuint64_t *id_out)
{
    return cuStreamGetCaptureInfo_v2(hStream, captureStatus_out, id_out, NULL, NULL, NULL);
}
