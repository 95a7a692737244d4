/* Host cost of the CUDA driver calls nccltap makes per timed operation, on
 * this machine: cuEventRecord (the caller pays two), cuStreamIsCapturing,
 * cuStreamGetCtx, and the reducer's cuEventQuery and cuEventElapsedTime;
 * and the least an application can put on a stream between two NCCL calls
 * (NCCLTAP_TIMING=all times a call made less than 1 us after the last from
 * that one's end): a wait on an event, a record of an event without timing.
 * Build, from the top: cc -O2 -Ipreload tests/gpu/driver_costs.c preload/cuda/cuda_driver.c -ldl */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#include "cuda/cuda_driver.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#define N 100000
#define TIME(label, stmt)                                         \
    do {                                                          \
        double t0 = now_ns();                                     \
        for (int i = 0; i < N; i++)                               \
            stmt;                                                 \
        printf("%-22s %8.1f ns\n", label, (now_ns() - t0) / N);   \
    } while (0)

int main(void)
{
    struct cuda_driver cu;
    char why[256];
    if (cuda_driver_load(&cu, NULL, why, sizeof why)) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    CUdevice dev;
    CUcontext ctx;
    CUstream s;
    CUevent a, b;
    cu.cuDeviceGet(&dev, 0);
    cu.cuDevicePrimaryCtxRetain(&ctx, dev);
    cu.cuCtxSetCurrent(ctx);
    cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    cu.cuEventCreate(&a, CU_EVENT_DEFAULT);
    cu.cuEventCreate(&b, CU_EVENT_DEFAULT);
    int status;
    float ms;
    CUcontext got;
    TIME("cuEventRecord", cu.cuEventRecord(a, s));
    cu.cuStreamSynchronize(s);
    cu.cuEventRecord(b, s);
    cu.cuStreamSynchronize(s);
    TIME("cuStreamIsCapturing", cu.cuStreamIsCapturing(s, &status));
    TIME("cuStreamGetCtx", cu.cuStreamGetCtx(s, &got));
    TIME("cuEventQuery", cu.cuEventQuery(b));
    TIME("cuEventElapsedTime", cu.cuEventElapsedTime(&ms, a, b));
    struct timespec ts;
    TIME("clock_gettime", clock_gettime(CLOCK_MONOTONIC, &ts));
    CUevent mark;
    cu.cuEventCreate(&mark, CU_EVENT_DISABLE_TIMING);
    TIME("cuEventRecord no timing", cu.cuEventRecord(mark, s));
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    CUresult (*wait_event)(CUstream, CUevent, unsigned) = lib ? (CUresult(*)(CUstream, CUevent, unsigned))dlsym(lib, "cuStreamWaitEvent") : NULL;
    if (wait_event)
        TIME("cuStreamWaitEvent", wait_event(s, b, 0));
    return 0;
}
