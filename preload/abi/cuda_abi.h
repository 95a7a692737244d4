/* nccltap's own declarations of the CUDA driver API subset it uses.
 *
 * The driver is loaded with dlopen("libcuda.so.1") so that nccltap builds
 * without the CUDA toolkit and runs where no driver is installed. Several
 * driver entry points were revised and are exported under a versioned name
 * (cuCtxPushCurrent_v2, ...); the table lists the exported symbol that has
 * the prototype given here. */
#ifndef NCCLTAP_CUDA_ABI_H
#define NCCLTAP_CUDA_ABI_H

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUgraphNode_st *CUgraphNode;
typedef unsigned long long cuuint64_t;
typedef struct { char bytes[16]; } CUuuid;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_CONTEXT 201
#define CUDA_ERROR_INVALID_HANDLE 400
#define CUDA_ERROR_NOT_READY 600
#define CUDA_ERROR_NOT_SUPPORTED 801
#define CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE 910

#define CU_EVENT_DEFAULT 0x0
#define CU_EVENT_BLOCKING_SYNC 0x1
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_STREAM_NON_BLOCKING 0x1
/* cuEventRecordWithFlags: during stream capture, the record becomes an
 * event-record node of the graph (a plain cuEventRecord does not: it only
 * marks the capture's dependencies for cuStreamWaitEvent). */
#define CU_EVENT_RECORD_EXTERNAL 0x1

/* CUstreamCaptureStatus */
#define CU_STREAM_CAPTURE_STATUS_NONE 0
#define CU_STREAM_CAPTURE_STATUS_ACTIVE 1
#define CU_STREAM_CAPTURE_STATUS_INVALIDATED 2
/* CUstreamCaptureMode */
#define CU_STREAM_CAPTURE_MODE_GLOBAL 0
#define CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1
#define CU_STREAM_CAPTURE_MODE_RELAXED 2

/* CUgraphExecUpdateResult, and what cuGraphExecUpdate_v2 (CUDA 12) reports. */
#define CU_GRAPH_EXEC_UPDATE_SUCCESS 0
#define CU_GRAPH_EXEC_UPDATE_ERROR 1
#define CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED 2
#define CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED 3
typedef struct {
    int result; /* CUgraphExecUpdateResult */
    CUgraphNode errorNode;
    CUgraphNode errorFromNode;
} CUgraphExecUpdateResultInfo;

/* cuGraphInstantiateWithParams (CUDA 12.0). */
#define CUDA_GRAPH_INSTANTIATE_SUCCESS 0
#define CUDA_GRAPH_INSTANTIATE_ERROR 1
typedef struct {
    cuuint64_t flags;
    CUstream hUploadStream;
    CUgraphNode hErrNode_out;
    int result_out; /* CUgraphInstantiateResult */
} CUDA_GRAPH_INSTANTIATE_PARAMS;

/* cuGetProcAddress (CUDA 11.3; _v2, with symbolStatus, CUDA 12.0):
 * CUdriverProcAddress_flags and CUdriverProcAddressQueryResult. */
#define CU_GET_PROC_ADDRESS_DEFAULT 0
#define CU_GET_PROC_ADDRESS_LEGACY_STREAM 0x1
#define CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM 0x2
#define CU_GET_PROC_ADDRESS_SUCCESS 0
#define CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND 1
#define CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT 2
typedef int CUdriverProcAddressQueryResult;
/* The per-thread default stream's handle. */
#define CU_STREAM_PER_THREAD ((CUstream)0x2)

/* The graph entry points nccltap interposes (entry/graph_hooks.c), by
 * every name a driver exports them under: CUDA 10's cuGraphInstantiate
 * and CUDA 11's _v2 (both with an error node and a log), CUDA 11.4's
 * WithFlags (what CUDA 12's cuda.h calls cuGraphInstantiate), 12.0's
 * WithParams; the per-thread default stream's _ptsz twins of those that
 * take a stream; CUDA 10.2's cuGraphExecUpdate and 12.0's _v2. Not in the
 * table below: the shim never calls them itself; its wrappers forward to
 * the next definition. */
#define NCCLTAP_CUDA_GRAPH_API(X) \
  X(cuGraphInstantiate, CUresult, (CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize), (phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize)) \
  X(cuGraphInstantiate_v2, CUresult, (CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize), (phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize)) \
  X(cuGraphInstantiateWithFlags, CUresult, (CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags), (phGraphExec, hGraph, flags)) \
  X(cuGraphInstantiateWithParams, CUresult, (CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams), (phGraphExec, hGraph, instantiateParams)) \
  X(cuGraphInstantiateWithParams_ptsz, CUresult, (CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams), (phGraphExec, hGraph, instantiateParams)) \
  X(cuGraphLaunch, CUresult, (CUgraphExec hGraphExec, CUstream hStream), (hGraphExec, hStream)) \
  X(cuGraphLaunch_ptsz, CUresult, (CUgraphExec hGraphExec, CUstream hStream), (hGraphExec, hStream)) \
  X(cuGraphExecUpdate, CUresult, (CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out, int *updateResult_out), (hGraphExec, hGraph, hErrorNode_out, updateResult_out)) \
  X(cuGraphExecUpdate_v2, CUresult, (CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo *resultInfo), (hGraphExec, hGraph, resultInfo)) \
  X(cuGraphExecDestroy, CUresult, (CUgraphExec hGraphExec), (hGraphExec)) \
  X(cuGraphDestroy, CUresult, (CUgraph hGraph), (hGraph))

/* The driver's entry-point lookup, whose answers nccltap replaces for the
 * names above (entry/proc_address.c, reached through dlsym): CUDA 11.3's,
 * 12.0's _v2 and its _ptsz twin (for which flags 0 means the per-thread
 * default stream). */
#define NCCLTAP_CUDA_PROC_API(X) \
  X(cuGetProcAddress, CUresult, (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags), (symbol, pfn, cudaVersion, flags)) \
  X(cuGetProcAddress_v2, CUresult, (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus), (symbol, pfn, cudaVersion, flags, symbolStatus)) \
  X(cuGetProcAddress_v2_ptsz, CUresult, (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus), (symbol, pfn, cudaVersion, flags, symbolStatus))

/* X(field, "exported symbol", return type, params). Optional entries may be
 * missing from a driver; callers check the pointer. */
#define NCCLTAP_CUDA_API(X) \
  X(cuInit, "cuInit", CUresult, (unsigned int flags)) \
  X(cuGetErrorString, "cuGetErrorString", CUresult, (CUresult error, const char **str)) \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult, (int *count)) \
  X(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice *device, int ordinal)) \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult, (char *name, int len, CUdevice dev)) \
  X(cuDeviceGetUuid, "cuDeviceGetUuid_v2", CUresult, (CUuuid *uuid, CUdevice dev)) \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult, (CUcontext *pctx, CUdevice dev)) \
  X(cuCtxGetCurrent, "cuCtxGetCurrent", CUresult, (CUcontext *pctx)) \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext ctx)) \
  X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", CUresult, (CUcontext ctx)) \
  X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", CUresult, (CUcontext *pctx)) \
  X(cuCtxGetDevice, "cuCtxGetDevice", CUresult, (CUdevice *device)) \
  X(cuCtxSynchronize, "cuCtxSynchronize", CUresult, (void)) \
  X(cuStreamCreate, "cuStreamCreate", CUresult, (CUstream *phStream, unsigned int flags)) \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream hStream)) \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream hStream)) \
  X(cuStreamGetCtx, "cuStreamGetCtx", CUresult, (CUstream hStream, CUcontext *pctx)) \
  X(cuStreamIsCapturing, "cuStreamIsCapturing", CUresult, (CUstream hStream, int *captureStatus)) \
  X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", CUresult, (CUstream hStream, int mode)) \
  X(cuStreamEndCapture, "cuStreamEndCapture", CUresult, (CUstream hStream, CUgraph *phGraph)) \
  X(cuThreadExchangeStreamCaptureMode, "cuThreadExchangeStreamCaptureMode", CUresult, (int *mode)) \
  X(cuStreamGetCaptureInfo, "cuStreamGetCaptureInfo_v2", CUresult, (CUstream hStream, int *captureStatus_out, \
    cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out, size_t *numDependencies_out)) \
  X(cuGraphExecEventRecordNodeSetEvent, "cuGraphExecEventRecordNodeSetEvent", CUresult, \
    (CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)) \
  X(cuEventCreate, "cuEventCreate", CUresult, (CUevent *phEvent, unsigned int flags)) \
  X(cuEventDestroy, "cuEventDestroy_v2", CUresult, (CUevent hEvent)) \
  X(cuEventRecord, "cuEventRecord", CUresult, (CUevent hEvent, CUstream hStream)) \
  X(cuEventRecordWithFlags, "cuEventRecordWithFlags", CUresult, (CUevent hEvent, CUstream hStream, unsigned int flags)) \
  X(cuEventQuery, "cuEventQuery", CUresult, (CUevent hEvent)) \
  X(cuEventSynchronize, "cuEventSynchronize", CUresult, (CUevent hEvent)) \
  X(cuEventElapsedTime, "cuEventElapsedTime", CUresult, (float *pMilliseconds, CUevent hStart, CUevent hEnd)) \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr *dptr, size_t bytesize)) \
  X(cuMemFree, "cuMemFree_v2", CUresult, (CUdeviceptr dptr)) \
  X(cuMemsetD8, "cuMemsetD8_v2", CUresult, (CUdeviceptr dstDevice, unsigned char uc, size_t N))

#endif
