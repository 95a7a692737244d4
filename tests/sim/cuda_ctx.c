/* Devices' primary contexts and the calling thread's current context.
 *
 * Only primary contexts exist (one per device, never destroyed): that is
 * what cudart, and so every NCCL application, uses. The current context is
 * per thread, as in the driver: the top of a small per-thread stack. */
#include <stdlib.h>

#include "cuda_internal.h"
#include "sim_env.h"
#include "sim_time.h"

#define CTX_STACK_DEPTH 32

static int ndev;
static struct CUctx_st *ctxs;

static __thread struct CUctx_st *ctx_stack[CTX_STACK_DEPTH];
static __thread int ctx_depth;

void sim_ctx_setup(void)
{
    ndev = (int)sim_knob_long(SIM_NDEV);
    ctxs = calloc((size_t)ndev, sizeof *ctxs);
    if (!ctxs)
        abort();   /* a few KiB at load time: nothing sensible to fall back to */
    for (int i = 0; i < ndev; i++) {
        ctxs[i].device = i;
        ctxs[i].default_stream.ctx = &ctxs[i];
        ctxs[i].default_stream.last = &ctxs[i].default_stream.head;
    }
}

int sim_device_count(void)
{
    return ndev;
}

struct CUctx_st *sim_primary_ctx(int device)
{
    return device >= 0 && device < ndev ? &ctxs[device] : NULL;
}

struct CUctx_st *sim_current_ctx(void)
{
    return ctx_depth ? ctx_stack[ctx_depth - 1] : NULL;
}

static int is_ctx(CUcontext c)
{
    return c >= ctxs && c < ctxs + ndev;
}

SIM_API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    SIM_REQUIRE_INIT();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (!sim_primary_ctx(dev))
        return SIM_CUDA_ERROR_INVALID_DEVICE;
    *pctx = sim_primary_ctx(dev);
    return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    SIM_REQUIRE_INIT();
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = sim_current_ctx();
    return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxSetCurrent(CUcontext ctx)
{
    SIM_REQUIRE_INIT();
    if (ctx && !is_ctx(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    /* Replaces the top of the stack; NULL pops it, as in the driver. */
    if (!ctx) {
        if (ctx_depth)
            ctx_depth--;
    } else if (ctx_depth) {
        ctx_stack[ctx_depth - 1] = ctx;
    } else {
        ctx_stack[ctx_depth++] = ctx;
    }
    return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    SIM_REQUIRE_INIT();
    if (!ctx || !is_ctx(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx_depth == CTX_STACK_DEPTH)
        return CUDA_ERROR_INVALID_VALUE;
    ctx_stack[ctx_depth++] = ctx;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    SIM_REQUIRE_INIT();
    if (!ctx_depth)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct CUctx_st *c = ctx_stack[--ctx_depth];
    if (pctx)
        *pctx = c;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxGetDevice(CUdevice *device)
{
    SIM_REQUIRE_INIT();
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c = sim_current_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *device = c->device;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuCtxSynchronize(void)
{
    SIM_REQUIRE_INIT();
    struct CUctx_st *c = sim_current_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    sim_lock();
    if (sim_capture_unsafe_call() != CUDA_SUCCESS) {
        sim_unlock();
        return SIM_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    uint64_t end = sim_stream_drain(&c->default_stream);
    /* The list may change while draining waits (streams destroyed and
     * freed); start over until one pass finds everything drained. */
    for (;;) {
        int waited = 0;
        for (struct CUstream_st *s = c->streams; s; s = s->ctx_next) {
            sim_queue_resolve(s);
            if (s->head) {
                sim_progress_wait();
                waited = 1;
                break;
            }
            if (s->tail > end)
                end = s->tail;
        }
        if (!waited)
            break;
    }
    sim_unlock();
    sim_sleep_until_ns(end);
    return CUDA_SUCCESS;
}
