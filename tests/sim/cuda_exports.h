/* Prototypes of the driver entry points the simulator exports, generated
 * from nccltap's table (NCCLTAP_CUDA_API), so that a definition here that
 * disagrees with the table does not compile. The table names each entry
 * by field and by exported symbol (a string); this maps field to symbol. */
#ifndef NCCLSIM_CUDA_EXPORTS_H
#define NCCLSIM_CUDA_EXPORTS_H

#include <stddef.h>   /* cuda_abi.h uses size_t without including it */
#include "abi/cuda_abi.h"

#define SIM_CU_cuInit cuInit
#define SIM_CU_cuGetErrorString cuGetErrorString
#define SIM_CU_cuDeviceGetCount cuDeviceGetCount
#define SIM_CU_cuDeviceGet cuDeviceGet
#define SIM_CU_cuDeviceGetName cuDeviceGetName
#define SIM_CU_cuDeviceGetUuid cuDeviceGetUuid_v2
#define SIM_CU_cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRetain
#define SIM_CU_cuCtxGetCurrent cuCtxGetCurrent
#define SIM_CU_cuCtxSetCurrent cuCtxSetCurrent
#define SIM_CU_cuCtxPushCurrent cuCtxPushCurrent_v2
#define SIM_CU_cuCtxPopCurrent cuCtxPopCurrent_v2
#define SIM_CU_cuCtxGetDevice cuCtxGetDevice
#define SIM_CU_cuCtxSynchronize cuCtxSynchronize
#define SIM_CU_cuStreamCreate cuStreamCreate
#define SIM_CU_cuStreamDestroy cuStreamDestroy_v2
#define SIM_CU_cuStreamSynchronize cuStreamSynchronize
#define SIM_CU_cuStreamGetCtx cuStreamGetCtx
#define SIM_CU_cuStreamIsCapturing cuStreamIsCapturing
#define SIM_CU_cuStreamBeginCapture cuStreamBeginCapture_v2
#define SIM_CU_cuStreamEndCapture cuStreamEndCapture
#define SIM_CU_cuThreadExchangeStreamCaptureMode cuThreadExchangeStreamCaptureMode
#define SIM_CU_cuStreamGetCaptureInfo cuStreamGetCaptureInfo_v2
#define SIM_CU_cuGraphExecEventRecordNodeSetEvent cuGraphExecEventRecordNodeSetEvent
#define SIM_CU_cuEventCreate cuEventCreate
#define SIM_CU_cuEventDestroy cuEventDestroy_v2
#define SIM_CU_cuEventRecord cuEventRecord
#define SIM_CU_cuEventRecordWithFlags cuEventRecordWithFlags
#define SIM_CU_cuEventQuery cuEventQuery
#define SIM_CU_cuEventSynchronize cuEventSynchronize
#define SIM_CU_cuEventElapsedTime cuEventElapsedTime
#define SIM_CU_cuMemAlloc cuMemAlloc_v2
#define SIM_CU_cuMemFree cuMemFree_v2
#define SIM_CU_cuMemsetD8 cuMemsetD8_v2

#define NCCLSIM_CU_PROTOTYPE(field, symbol, ret, params, ...) ret SIM_CU_##field params;
NCCLTAP_CUDA_API(NCCLSIM_CU_PROTOTYPE)
#undef NCCLSIM_CU_PROTOTYPE

/* CUDA 12.8's second name for cuEventElapsedTime. */
CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd);

/* The graph entry points (cuda_graph.c), the prototypes nccltap's
 * wrappers have. */
#define NCCLSIM_GRAPH_PROTOTYPE(name, ret, params, args) ret name params;
NCCLTAP_CUDA_GRAPH_API(NCCLSIM_GRAPH_PROTOTYPE)
#undef NCCLSIM_GRAPH_PROTOTYPE

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes);

/* The entry-point lookup (cuda_proc.c), as nccltap's table has it, and the
 * driver's version it answers by. */
#define NCCLSIM_PROC_PROTOTYPE(name, ret, params, args) ret name params;
NCCLTAP_CUDA_PROC_API(NCCLSIM_PROC_PROTOTYPE)
#undef NCCLSIM_PROC_PROTOTYPE
CUresult cuDriverGetVersion(int *driverVersion);

/* CUDA 11's capture query: status and id only. */
CUresult cuStreamGetCaptureInfo(CUstream hStream, int *captureStatus_out, cuuint64_t *id_out);

/* Not in nccltap's table (the shim copies nothing); nccltap-bench --check
 * resolves them itself. Real only with NCCLSIM_DATA=1 (cuda_mem.c). */
CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);

#endif
