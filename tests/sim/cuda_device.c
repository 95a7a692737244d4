/* Driver initialization, devices and error strings. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static atomic_int initialized;

void sim_cuda_init(void)
{
    pthread_once(&init_once, sim_ctx_setup);
    atomic_store(&initialized, 1);
}

int sim_cuda_initialized(void)
{
    return atomic_load(&initialized);
}

SIM_API CUresult cuInit(unsigned int flags)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    sim_cuda_init();
    return CUDA_SUCCESS;
}

SIM_API CUresult cuGetErrorString(CUresult error, const char **str)
{
    if (!str)
        return CUDA_ERROR_INVALID_VALUE;
    switch (error) {
    case CUDA_SUCCESS: *str = "no error"; break;
    case CUDA_ERROR_INVALID_VALUE: *str = "invalid argument"; break;
    case SIM_CUDA_ERROR_OUT_OF_MEMORY: *str = "out of memory"; break;
    case CUDA_ERROR_NOT_INITIALIZED: *str = "initialization error"; break;
    case CUDA_ERROR_NO_DEVICE: *str = "no CUDA-capable device is detected"; break;
    case SIM_CUDA_ERROR_INVALID_DEVICE: *str = "invalid device ordinal"; break;
    case CUDA_ERROR_INVALID_CONTEXT: *str = "invalid device context"; break;
    case CUDA_ERROR_INVALID_HANDLE: *str = "invalid resource handle"; break;
    case SIM_CUDA_ERROR_ILLEGAL_STATE: *str = "the operation is not permitted in the current state"; break;
    case CUDA_ERROR_NOT_READY: *str = "device not ready"; break;
    case CUDA_ERROR_NOT_SUPPORTED: *str = "operation not supported"; break;
    case SIM_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
        *str = "operation not permitted when stream is capturing"; break;
    default:
        /* As the real driver does for a code it does not know. */
        *str = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGetCount(int *count)
{
    SIM_REQUIRE_INIT();
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = sim_device_count();
    return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    SIM_REQUIRE_INIT();
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= sim_device_count())
        return SIM_CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    SIM_REQUIRE_INIT();
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= sim_device_count())
        return SIM_CUDA_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "nccltap simulated GPU %d", dev);
    return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    SIM_REQUIRE_INIT();
    if (!uuid)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= sim_device_count())
        return SIM_CUDA_ERROR_INVALID_DEVICE;
    /* Deterministic, so that every process (and every run) names a device
     * the same: a fixed 12-byte tag, then the ordinal big-endian. */
    static const char tag[12] = { 'n', 'c', 'c', 'l', 't', 'a', 'p', '-', 's', 'i', 'm', '-' };
    memcpy(uuid->bytes, tag, sizeof tag);
    uint32_t d = (uint32_t)dev;
    for (int i = 0; i < 4; i++)
        uuid->bytes[12 + i] = (char)(d >> (24 - 8 * i));
    return CUDA_SUCCESS;
}
