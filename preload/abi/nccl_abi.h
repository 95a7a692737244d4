/* nccltap's own declarations of the NCCL ABI (NCCL 2.0 to 2.31).
 *
 * nccltap must build where nccl.h is absent, so it carries the types,
 * enum values and prototypes it uses. When a translation unit has already
 * included the real nccl.h (include guard NCCL_H_), the type section is
 * skipped and the prototypes below are checked by the compiler against the
 * system's: tests/abi_check.c does exactly that when nccl.h is installed. */
#ifndef NCCLTAP_NCCL_ABI_H
#define NCCLTAP_NCCL_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifndef NCCL_H_
typedef struct CUstream_st *cudaStream_t;
typedef struct ncclComm *ncclComm_t;
typedef struct ncclWindow_vidmem *ncclWindow_t; /* 2.27 */

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct { char internal[NCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;

typedef enum {
    ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2,
    ncclInternalError = 3, ncclInvalidArgument = 4, ncclInvalidUsage = 5,
    ncclRemoteError = 6, ncclInProgress = 7, ncclTimeout = 8 /* 2.30 */
} ncclResult_t;

/* Values >= 5 (ncclNumOps) are PreMulSum or other user-created ops. */
typedef enum { ncclScalarDevice = 0, ncclScalarHostImmediate = 1 } ncclScalarResidence_t;

typedef enum {
    ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4,
    ncclMaxRedOp = 0x7fffffff
} ncclRedOp_t;

typedef enum {
    ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclUint32 = 3,
    ncclInt64 = 4, ncclUint64 = 5, ncclFloat16 = 6, ncclFloat32 = 7,
    ncclFloat64 = 8, ncclBfloat16 = 9, ncclFloat8e4m3 = 10,
    ncclFloat8e5m2 = 11
} ncclDataType_t;

#define NCCL_SPLIT_NOCOLOR -1

/* The config struct is versioned: its leading fields never move, and
 * `version` (an NCCL_VERSION_CODE) tells which later fields exist. This is
 * the layout of 2.27 up to commName, the last field nccltap reads. */
typedef struct {
    size_t size;
    unsigned int magic;
    unsigned int version;
    int blocking;
    int cgaClusterSize;
    int minCTAs;
    int maxCTAs;
    const char *netName;
    int splitShare;
    int trafficClass;       /* 2.26 */
    const char *commName;   /* 2.27 */
} ncclConfig_t;

typedef struct {
    size_t size;
    unsigned int magic;
    unsigned int version;
    float estimatedTime;
} ncclSimInfo_t;

/* The per-call configuration of 2.31's nccl<Coll>Config collectives
 * (ncclCollConfig_v23100 in NVIDIA/nccl's src/nccl.h.in): versioned and
 * append-only; nccltap only passes it on. NULL is the plain call. */
typedef struct ncclCollConfig_v23100 {
    size_t size;
    unsigned int magic;
    unsigned int version;
    struct ncclConfigExt *ext;
    int minCTAs;
    int maxCTAs;
    int nvlsCTAs;
    int cgaClusterSize;
    const char *algSelection;
    int forceAlgSelection;
    int CTAPolicy;
    unsigned long long userProfilerTag; /* uint64_t */
} ncclCollConfig_t;

/* One descriptor of ncclWaitSignal (NCCL 2.29.2, src/nccl.h.in): wait for
 * opCnt signals from `peer` on signal index sigIdx of context ctx. */
typedef struct {
    int opCnt;
    int peer;
    int sigIdx;
    int ctx;
} ncclWaitSignalDesc_t;
#endif /* NCCL_H_ */

/* The device API's host side (NCCL 2.28.3, nccl_device/core.h, which
 * nccl.h does not include): a device communicator made from `comm` to
 * the requirements given, filled into the caller's ncclDevComm_t. nccltap
 * passes both by pointer only; C11 lets these typedefs repeat the
 * header's. */
typedef struct ncclDevCommRequirements ncclDevCommRequirements_t;
typedef struct ncclDevComm ncclDevComm_t;

/* First NCCL version whose ncclConfig_t has commName. */
#define NCCLTAP_CONFIG_COMMNAME_VERSION 22700

/* Every NCCL function nccltap calls or exports, with its real prototype;
 * each wrapped one with its pnccl twin (NCCL's profiling interface). */
#include "abi/nccl_api.def"
#define NCCLTAP_PROTOTYPE(name, params, args, kind) ncclResult_t name params, p##name params;
NCCLTAP_NCCL_API(NCCLTAP_PROTOTYPE)
#undef NCCLTAP_PROTOTYPE
#define NCCLTAP_QUERY_PROTOTYPE(ret, name, params, args) ret name params;
NCCLTAP_NCCL_QUERIES(NCCLTAP_QUERY_PROTOTYPE)
#undef NCCLTAP_QUERY_PROTOTYPE

#endif
