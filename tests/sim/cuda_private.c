/* The ncclsim_ interface for the simulated NCCL (see sim_cuda_private.h). */
#include "cuda_internal.h"

SIM_API int ncclsim_current_device(void)
{
    sim_cuda_init();
    struct CUctx_st *c = sim_current_ctx();
    return c ? c->device : -1;
}

SIM_API int ncclsim_device_count(void)
{
    sim_cuda_init();
    return sim_device_count();
}

SIM_API int ncclsim_stream_capturing(CUstream stream, int device)
{
    sim_cuda_init();
    struct CUstream_st *s = sim_stream_get(stream, device);
    if (!s)
        return -1;
    sim_lock();
    int c = s->capturing;
    sim_unlock();
    return c;
}

SIM_API CUresult ncclsim_stream_enqueue(CUstream stream, int device, const struct ncclsim_work *work)
{
    sim_cuda_init();
    struct CUstream_st *s = sim_stream_get(stream, device);
    if (!s) {
        if (work->release)
            work->release(work->arg);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    sim_lock();
    sim_queue_work(s, work);
    sim_unlock();
    return CUDA_SUCCESS;
}

SIM_API CUresult ncclsim_stream_capture(CUstream stream, int device, const struct ncclsim_node *node)
{
    sim_cuda_init();
    struct CUstream_st *s = sim_stream_get(stream, device);
    CUresult r = s ? SIM_CUDA_ERROR_ILLEGAL_STATE : CUDA_ERROR_INVALID_CONTEXT;
    if (s) {
        sim_lock();
        if (s->capturing) {
            sim_graph_add_op(s->capture_graph, node);
            r = CUDA_SUCCESS;
        }
        sim_unlock();
    }
    if (r != CUDA_SUCCESS && node->release)
        node->release(node->arg);
    return r;
}
