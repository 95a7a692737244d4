/* Events: recorded on a stream's simulated clock, complete when the host
 * clock reaches their time, so that polling them behaves as on a GPU. */
#include <stdlib.h>

#include "cuda_internal.h"
#include "sim_time.h"

void sim_event_unref(struct CUevent_st *ev)
{
    if (--ev->refs == 0)
        free(ev);
}

/* Resolves the queue an event waits in; 1 once its time is known. */
static int event_known(struct CUevent_st *ev)
{
    if (ev->state == EVENT_PENDING)
        sim_queue_resolve(ev->stream);
    return ev->state == EVENT_DONE;
}

SIM_API CUresult cuEventCreate(CUevent *phEvent, unsigned int flags)
{
    SIM_REQUIRE_INIT();
    unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | 0x4 /* interprocess */;
    if (!phEvent || (flags & ~known))
        return CUDA_ERROR_INVALID_VALUE;
    if (!sim_current_ctx())
        return CUDA_ERROR_INVALID_CONTEXT;
    struct CUevent_st *ev = calloc(1, sizeof *ev);
    if (!ev)
        return SIM_CUDA_ERROR_OUT_OF_MEMORY;
    ev->flags = flags;
    ev->refs = 1;
    *phEvent = ev;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuEventDestroy_v2(CUevent hEvent)
{
    SIM_REQUIRE_INIT();
    if (!hEvent)
        return CUDA_ERROR_INVALID_HANDLE;
    /* A record still queued keeps the event alive until it resolves. */
    sim_lock();
    sim_event_unref(hEvent);
    sim_unlock();
    return CUDA_SUCCESS;
}

SIM_API CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    SIM_REQUIRE_INIT();
    if (!hEvent)
        return CUDA_ERROR_INVALID_HANDLE;
    struct CUstream_st *s = sim_stream_get(hStream, -1);
    if (!s)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_lock();
    sim_queue_event(s, hEvent);
    sim_unlock();
    return CUDA_SUCCESS;
}

/* CU_EVENT_RECORD_EXTERNAL: during capture, an event-record node, which
 * records the event at that point of each launch. Otherwise, and for a
 * plain cuEventRecord during capture (which in CUDA marks dependencies for
 * cross-stream capture, not modelled), nothing is captured. */
SIM_API CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    SIM_REQUIRE_INIT();
    if (!hEvent)
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s = sim_stream_get(hStream, -1);
    if (!s)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_lock();
    if (s->capturing && (flags & CU_EVENT_RECORD_EXTERNAL))
        sim_graph_add_event(s->capture_graph, hEvent);
    else
        sim_queue_event(s, hEvent);
    sim_unlock();
    return CUDA_SUCCESS;
}

SIM_API CUresult cuEventQuery(CUevent hEvent)
{
    SIM_REQUIRE_INIT();
    if (!hEvent)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = CUDA_SUCCESS;   /* never recorded: complete, as in CUDA */
    sim_lock();
    if (sim_capture_unsafe_call() != CUDA_SUCCESS) {
        sim_unlock();
        return SIM_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    if (hEvent->state != EVENT_NEVER_RECORDED &&
        (!event_known(hEvent) || sim_now_ns() < hEvent->time))
        r = CUDA_ERROR_NOT_READY;
    sim_unlock();
    return r;
}

SIM_API CUresult cuEventSynchronize(CUevent hEvent)
{
    SIM_REQUIRE_INIT();
    if (!hEvent)
        return CUDA_ERROR_INVALID_HANDLE;
    sim_lock();
    if (sim_capture_unsafe_call() != CUDA_SUCCESS) {
        sim_unlock();
        return SIM_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    if (hEvent->state == EVENT_NEVER_RECORDED) {
        sim_unlock();
        return CUDA_SUCCESS;
    }
    while (!event_known(hEvent))
        sim_progress_wait();
    uint64_t t = hEvent->time;
    sim_unlock();
    sim_sleep_until_ns(t);
    return CUDA_SUCCESS;
}

static CUresult elapsed(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    SIM_REQUIRE_INIT();
    if (!pMilliseconds)
        return CUDA_ERROR_INVALID_VALUE;
    if (!hStart || !hEnd)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = CUDA_SUCCESS;
    sim_lock();
    uint64_t now = sim_now_ns();
    if ((hStart->flags | hEnd->flags) & CU_EVENT_DISABLE_TIMING)
        r = CUDA_ERROR_INVALID_HANDLE;
    else if (hStart->state == EVENT_NEVER_RECORDED || hEnd->state == EVENT_NEVER_RECORDED)
        r = CUDA_ERROR_INVALID_HANDLE;
    else if (!event_known(hStart) || !event_known(hEnd) ||
             now < hStart->time || now < hEnd->time)
        r = CUDA_ERROR_NOT_READY;
    else
        *pMilliseconds = (float)((double)(int64_t)(hEnd->time - hStart->time) / 1e6);
    sim_unlock();
    return r;
}

SIM_API CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return elapsed(pMilliseconds, hStart, hEnd);
}

/* CUDA 12.8 exports the same entry under this name too. */
SIM_API CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    return elapsed(pMilliseconds, hStart, hEnd);
}
