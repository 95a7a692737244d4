/* The driver's entry-point lookup, cuGetProcAddress (CUDA 11.3), _v2 (12.0,
 * with symbolStatus) and _v2_ptsz, through which cudart gets every driver
 * function, and cuDriverGetVersion.
 *
 * As the driver API's reference has it: `symbol` is a base name
 * ("cuMemAlloc", never "cuMemAlloc_v2"); the answer is the newest variant
 * introduced at or before `cudaVersion`, which must not exceed the
 * driver's version (else CUDA_ERROR_INVALID_VALUE); with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (or flags 0 through
 * cuGetProcAddress_v2_ptsz) the _ptsz twin where there is one, else the
 * legacy function. A name it does not know, or a version below the first
 * variant's, returns CUDA_SUCCESS with *pfn NULL and symbolStatus saying
 * which (CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, _VERSION_NOT_SUFFICIENT).
 * Needs no cuInit: cudart looks cuInit up through it.
 *
 * The simulator is a CUDA 12.8 driver that provides a subset: every
 * function it exports, by its base name. Where CUDA has a variant the
 * simulator lacks (cuStreamGetCaptureInfo_v3, CUDA 12.3; the first
 * cuDeviceGetUuid, cuCtxPushCurrent, cuStreamBeginCapture), a request
 * that would get it gets NULL and CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,
 * as for a function "not supported on the platform", never another
 * variant's pointer. Functions whose only difference under the per-thread
 * default stream is that stream's meaning have no _ptsz twin here but the
 * graph ones (the simulator's per-thread stream is the legacy one). */
#include <stdint.h>
#include <string.h>

#include "cuda_internal.h"

#define SIM_DRIVER_VERSION 12080

/* What "cuGetProcAddress" is answered with: not the exported symbols, as a
 * driver may hand out its own entry points rather than its exports. */
static CUresult proc_v1(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);
static CUresult proc_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                        CUdriverProcAddressQueryResult *symbolStatus);
static CUresult proc_v2_ptsz(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus);

struct proc_row {
    const char *symbol;
    int since;
    void *fn;   /* NULL: a variant the simulator does not provide */
    void *ptsz; /* the per-thread default stream's twin, or NULL */
};

#define F(fn) ((void *)(uintptr_t)(fn))
static const struct proc_row rows[] = {
    {"cuInit", 2000, F(cuInit), NULL},
    {"cuDriverGetVersion", 2020, F(cuDriverGetVersion), NULL},
    {"cuGetErrorString", 6000, F(cuGetErrorString), NULL},
    {"cuGetProcAddress", 11030, F(proc_v1), NULL},
    {"cuGetProcAddress", 12000, F(proc_v2), F(proc_v2_ptsz)},
    {"cuDeviceGetCount", 2000, F(cuDeviceGetCount), NULL},
    {"cuDeviceGet", 2000, F(cuDeviceGet), NULL},
    {"cuDeviceGetName", 2000, F(cuDeviceGetName), NULL},
    {"cuDeviceGetUuid", 9020, NULL, NULL},
    {"cuDeviceGetUuid", 11040, F(cuDeviceGetUuid_v2), NULL},
    {"cuDevicePrimaryCtxRetain", 7000, F(cuDevicePrimaryCtxRetain), NULL},
    {"cuCtxGetCurrent", 4000, F(cuCtxGetCurrent), NULL},
    {"cuCtxSetCurrent", 4000, F(cuCtxSetCurrent), NULL},
    {"cuCtxPushCurrent", 2000, NULL, NULL},
    {"cuCtxPushCurrent", 4000, F(cuCtxPushCurrent_v2), NULL},
    {"cuCtxPopCurrent", 2000, NULL, NULL},
    {"cuCtxPopCurrent", 4000, F(cuCtxPopCurrent_v2), NULL},
    {"cuCtxGetDevice", 2000, F(cuCtxGetDevice), NULL},
    {"cuCtxSynchronize", 2000, F(cuCtxSynchronize), NULL},
    {"cuStreamCreate", 2000, F(cuStreamCreate), NULL},
    {"cuStreamDestroy", 4000, F(cuStreamDestroy_v2), NULL},
    {"cuStreamSynchronize", 2000, F(cuStreamSynchronize), NULL},
    {"cuStreamGetCtx", 9020, F(cuStreamGetCtx), NULL},
    {"cuStreamIsCapturing", 10000, F(cuStreamIsCapturing), NULL},
    {"cuStreamBeginCapture", 10000, NULL, NULL},
    {"cuStreamBeginCapture", 10010, F(cuStreamBeginCapture_v2), NULL},
    {"cuStreamEndCapture", 10000, F(cuStreamEndCapture), NULL},
    {"cuStreamGetCaptureInfo", 10010, F(cuStreamGetCaptureInfo), NULL},
    {"cuStreamGetCaptureInfo", 11030, F(cuStreamGetCaptureInfo_v2), NULL},
    {"cuStreamGetCaptureInfo", 12030, NULL, NULL},
    {"cuEventCreate", 2000, F(cuEventCreate), NULL},
    {"cuEventDestroy", 4000, F(cuEventDestroy_v2), NULL},
    {"cuEventRecord", 2000, F(cuEventRecord), NULL},
    {"cuEventRecordWithFlags", 11010, F(cuEventRecordWithFlags), NULL},
    {"cuEventQuery", 2000, F(cuEventQuery), NULL},
    {"cuEventSynchronize", 2000, F(cuEventSynchronize), NULL},
    {"cuEventElapsedTime", 2000, F(cuEventElapsedTime), NULL},
    {"cuEventElapsedTime", 12080, F(cuEventElapsedTime_v2), NULL},
    {"cuMemAlloc", 3020, F(cuMemAlloc_v2), NULL},
    {"cuMemFree", 3020, F(cuMemFree_v2), NULL},
    {"cuMemsetD8", 3020, F(cuMemsetD8_v2), NULL},
    {"cuMemcpyHtoD", 3020, F(cuMemcpyHtoD_v2), NULL},
    {"cuMemcpyDtoH", 3020, F(cuMemcpyDtoH_v2), NULL},
    {"cuGraphGetNodes", 10000, F(cuGraphGetNodes), NULL},
    {"cuGraphDestroy", 10000, F(cuGraphDestroy), NULL},
    {"cuGraphInstantiate", 10000, F(cuGraphInstantiate), NULL},
    {"cuGraphInstantiate", 11000, F(cuGraphInstantiate_v2), NULL},
    {"cuGraphInstantiate", 12000, F(cuGraphInstantiateWithFlags), NULL},
    {"cuGraphInstantiateWithFlags", 11040, F(cuGraphInstantiateWithFlags), NULL},
    {"cuGraphInstantiateWithParams", 12000, F(cuGraphInstantiateWithParams), F(cuGraphInstantiateWithParams_ptsz)},
    {"cuGraphExecUpdate", 10020, F(cuGraphExecUpdate), NULL},
    {"cuGraphExecUpdate", 12000, F(cuGraphExecUpdate_v2), NULL},
    {"cuGraphExecEventRecordNodeSetEvent", 11010, F(cuGraphExecEventRecordNodeSetEvent), NULL},
    {"cuGraphExecDestroy", 10000, F(cuGraphExecDestroy), NULL},
    {"cuGraphLaunch", 10000, F(cuGraphLaunch), F(cuGraphLaunch_ptsz)},
};

SIM_API CUresult cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = SIM_DRIVER_VERSION;
    return CUDA_SUCCESS;
}

static CUresult lookup(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags, int per_thread_default,
                       CUdriverProcAddressQueryResult *symbolStatus)
{
    if (!symbol || !pfn || cudaVersion > SIM_DRIVER_VERSION ||
        (flags != CU_GET_PROC_ADDRESS_DEFAULT && flags != CU_GET_PROC_ADDRESS_LEGACY_STREAM &&
         flags != CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
        return CUDA_ERROR_INVALID_VALUE;
    int per_thread = flags == CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM ||
                     (flags == CU_GET_PROC_ADDRESS_DEFAULT && per_thread_default);
    const struct proc_row *best = NULL;
    int known = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (strcmp(rows[i].symbol, symbol) != 0)
            continue;
        known = 1;
        if (rows[i].since <= cudaVersion && (!best || rows[i].since > best->since))
            best = &rows[i];
    }
    *pfn = best ? (per_thread && best->ptsz ? best->ptsz : best->fn) : NULL;
    if (symbolStatus)
        *symbolStatus = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS
                        : known && !best ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                                         : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_SUCCESS;
}

SIM_API CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return lookup(symbol, pfn, cudaVersion, flags, 0, NULL);
}

SIM_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult *symbolStatus)
{
    return lookup(symbol, pfn, cudaVersion, flags, 0, symbolStatus);
}

SIM_API CUresult cuGetProcAddress_v2_ptsz(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                          CUdriverProcAddressQueryResult *symbolStatus)
{
    return lookup(symbol, pfn, cudaVersion, flags, 1, symbolStatus);
}

static CUresult proc_v1(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return lookup(symbol, pfn, cudaVersion, flags, 0, NULL);
}

static CUresult proc_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                        CUdriverProcAddressQueryResult *symbolStatus)
{
    return lookup(symbol, pfn, cudaVersion, flags, 0, symbolStatus);
}

static CUresult proc_v2_ptsz(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus)
{
    return lookup(symbol, pfn, cudaVersion, flags, 1, symbolStatus);
}
