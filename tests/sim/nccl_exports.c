/* The public names of the simulated NCCL: each function under its own name
 * and its pnccl twin (NCCL's profiling interface), both calling the hidden
 * implementation, so that a call from one to the other never goes through
 * an interposer such as nccltap. Generated from nccl_api.def, so a function
 * added there fails to link here until the simulator implements it.
 *
 * The legacy build (NCCLSIM_LEGACY) compiles the same exports and hides the
 * ones NCCL 2.18 lacks with a linker version script (legacy.map). */
#include "nccl_internal.h"

#define NCCLSIM_TWIN_PROTOTYPE(name, params, args, ...) ncclResult_t p##name params;
NCCLTAP_NCCL_API(NCCLSIM_TWIN_PROTOTYPE)
#undef NCCLSIM_TWIN_PROTOTYPE

#define NCCLSIM_EXPORT(name, params, args, ...) \
    SIM_API ncclResult_t name params { return sim_##name args; } \
    SIM_API ncclResult_t p##name params { return sim_##name args; }
NCCLTAP_NCCL_API(NCCLSIM_EXPORT)
#undef NCCLSIM_EXPORT

ncclResult_t pncclGetVersion(int *version);
ncclResult_t pncclGetUniqueId(ncclUniqueId *uniqueId);
ncclResult_t pncclCommCount(const ncclComm_t comm, int *count);
ncclResult_t pncclCommCuDevice(const ncclComm_t comm, int *device);
ncclResult_t pncclCommUserRank(const ncclComm_t comm, int *rank);
ncclResult_t pncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError);
const char *pncclGetErrorString(ncclResult_t result);

#define NCCLSIM_EXPORT_QUERY(ret, name, params, args) \
    SIM_API ret name params { return sim_##name args; } \
    SIM_API ret p##name params { return sim_##name args; }
NCCLSIM_EXPORT_QUERY(ncclResult_t, ncclGetVersion, (int *version), (version))
NCCLSIM_EXPORT_QUERY(ncclResult_t, ncclGetUniqueId, (ncclUniqueId *uniqueId), (uniqueId))
NCCLSIM_EXPORT_QUERY(ncclResult_t, ncclCommCount, (const ncclComm_t comm, int *count), (comm, count))
NCCLSIM_EXPORT_QUERY(ncclResult_t, ncclCommCuDevice, (const ncclComm_t comm, int *device), (comm, device))
NCCLSIM_EXPORT_QUERY(ncclResult_t, ncclCommUserRank, (const ncclComm_t comm, int *rank), (comm, rank))
NCCLSIM_EXPORT_QUERY(ncclResult_t, ncclCommGetAsyncError, (ncclComm_t comm, ncclResult_t *asyncError),
                     (comm, asyncError))
NCCLSIM_EXPORT_QUERY(const char *, ncclGetErrorString, (ncclResult_t result), (result))
#undef NCCLSIM_EXPORT_QUERY
