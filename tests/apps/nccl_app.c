#include "nccl_app.h"

struct cuda_driver cu;

void app_cuda_init(void)
{
    char why[256];
    if (cuda_driver_load(&cu, NULL, why, sizeof why) != 0) {
        fprintf(stderr, "%s\n", why);
        exit(1);
    }
}

CUstream app_stream_on(int dev)
{
    CUdevice d;
    CUcontext ctx;
    CUstream s;
    CHECK_CU(cu.cuDeviceGet(&d, dev));
    CHECK_CU(cu.cuDevicePrimaryCtxRetain(&ctx, d));
    CHECK_CU(cu.cuCtxSetCurrent(ctx));
    CHECK_CU(cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    return s;
}

void *app_buffer(size_t bytes)
{
    CUdeviceptr p;
    CHECK_CU(cu.cuMemAlloc(&p, bytes));
    return (void *)(uintptr_t)p;
}
