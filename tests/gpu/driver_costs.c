/* Host cost of the CUDA driver calls nccltap makes per timed operation, on
 * this machine: cuEventRecord (the caller pays two), cuStreamIsCapturing,
 * cuStreamGetCtx, and the reducer's cuEventQuery and cuEventElapsedTime.
 * Build: cc -O2 -I../../preload/timing driver_costs.c ../../preload/timing/cuda_driver.c -ldl */
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
    return 0;
}
