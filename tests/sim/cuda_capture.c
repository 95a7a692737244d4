/* Stream capture: enough for an application to capture NCCL calls into a
 * graph, and for nccltap to see that a stream is capturing. Graphs are not
 * launched: work queued while capturing is dropped, and the clock of the
 * stream does not move. */
#include "cuda_internal.h"

/* Stands for every captured graph; nothing reads it. */
static char dummy_graph;

SIM_API CUresult cuStreamIsCapturing(CUstream hStream, int *captureStatus)
{
    SIM_REQUIRE_INIT();
    if (!captureStatus)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s = sim_stream_get(hStream, -1);
    if (!s)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_lock();
    *captureStatus = s->capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
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
    if (s->capturing)
        r = SIM_CUDA_ERROR_ILLEGAL_STATE;
    else
        s->capturing = 1;
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
        *phGraph = (CUgraph)(void *)&dummy_graph;
    }
    sim_unlock();
    return r;
}
