/* Every ABI fact nccltap's own declarations state, as (name, expression).
 * abi_ours.c evaluates them with preload/abi/nccl_abi.h, abi_system.c with
 * the system's nccl.h; abi_main.c compares the two tables. */
#define ABI_VALUES(X) \
  X(ncclSuccess) X(ncclUnhandledCudaError) X(ncclSystemError) X(ncclInternalError) \
  X(ncclInvalidArgument) X(ncclInvalidUsage) X(ncclRemoteError) X(ncclInProgress) \
  X(ncclSum) X(ncclProd) X(ncclMax) X(ncclMin) X(ncclAvg) \
  X(ncclInt8) X(ncclUint8) X(ncclInt32) X(ncclUint32) X(ncclInt64) X(ncclUint64) \
  X(ncclFloat16) X(ncclFloat32) X(ncclFloat64) X(ncclBfloat16) X(ncclFloat8e4m3) X(ncclFloat8e5m2) \
  X(NCCL_SPLIT_NOCOLOR) X(NCCL_UNIQUE_ID_BYTES) \
  X(sizeof(ncclUniqueId)) X(sizeof(ncclResult_t)) X(sizeof(ncclDataType_t)) X(sizeof(ncclRedOp_t)) \
  X(offsetof(ncclConfig_t, blocking)) X(offsetof(ncclConfig_t, netName)) \
  X(offsetof(ncclConfig_t, splitShare)) X(offsetof(ncclConfig_t, trafficClass)) \
  X(offsetof(ncclConfig_t, commName)) X(offsetof(ncclSimInfo_t, estimatedTime))

struct abi_value {
    const char *name;
    long long value;
};
