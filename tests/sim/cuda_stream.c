/* Streams: creation, destruction, synchronization. */
#include <stdlib.h>

#include "cuda_internal.h"
#include "sim_time.h"

struct CUstream_st *sim_stream_get(CUstream h, int device)
{
    if (h && h != SIM_STREAM_LEGACY && h != SIM_STREAM_PER_THREAD)
        return h;
    /* The per-thread default stream is simulated by the legacy one: the
     * difference (implicit synchronization with other streams) is not
     * modelled for any stream. */
    struct CUctx_st *c = device >= 0 ? sim_primary_ctx(device) : sim_current_ctx();
    return c ? &c->default_stream : NULL;
}

void sim_stream_free(struct CUstream_st *s)
{
    struct CUstream_st **link = &s->ctx->streams;
    while (*link != s)
        link = &(*link)->ctx_next;
    *link = s->ctx_next;
    sim_queue_forget_last_event(s);
    if (s->capture_graph) {  /* destroyed while capturing: the capture is lost */
        sim_capture_forget(s);
        sim_graph_free(s->capture_graph);
    }
    free(s);
}

uint64_t sim_stream_drain(struct CUstream_st *s)
{
    sim_queue_resolve(s);
    while (s->head) {
        sim_progress_wait();
        sim_queue_resolve(s);
    }
    return s->tail;
}

SIM_API CUresult cuStreamCreate(CUstream *phStream, unsigned int flags)
{
    SIM_REQUIRE_INIT();
    if (!phStream || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c = sim_current_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s)
        return SIM_CUDA_ERROR_OUT_OF_MEMORY;
    s->ctx = c;
    s->last = &s->head;
    sim_lock();
    s->ctx_next = c->streams;
    c->streams = s;
    sim_unlock();
    *phStream = s;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuStreamDestroy_v2(CUstream hStream)
{
    SIM_REQUIRE_INIT();
    if (!hStream || hStream == SIM_STREAM_LEGACY || hStream == SIM_STREAM_PER_THREAD)
        return CUDA_ERROR_INVALID_HANDLE;
    sim_lock();
    /* As in the driver, work already queued still runs: a stream with
     * queued work (or still on the progress thread's list) is freed by the
     * progress thread once it drains. */
    if (hStream->head || hStream->pending)
        hStream->destroyed = 1;
    else
        sim_stream_free(hStream);
    sim_unlock();
    return CUDA_SUCCESS;
}

SIM_API CUresult cuStreamSynchronize(CUstream hStream)
{
    SIM_REQUIRE_INIT();
    struct CUstream_st *s = sim_stream_get(hStream, -1);
    if (!s)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_lock();
    if (s->capturing || sim_capture_unsafe_call() != CUDA_SUCCESS) {
        s->capture_invalid |= s->capturing;
        sim_unlock();
        return SIM_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    uint64_t end = sim_stream_drain(s);
    sim_unlock();
    sim_sleep_until_ns(end);
    return CUDA_SUCCESS;
}

SIM_API CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
    SIM_REQUIRE_INIT();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s = sim_stream_get(hStream, -1);
    if (!s)
        return CUDA_ERROR_INVALID_CONTEXT;
    *pctx = s->ctx;
    return CUDA_SUCCESS;
}
