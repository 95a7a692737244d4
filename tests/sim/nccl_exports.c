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

#define NCCLSIM_DECLARE_QUERY(ret, name, params, args) ret p##name params;
NCCLTAP_NCCL_QUERIES(NCCLSIM_DECLARE_QUERY)
#undef NCCLSIM_DECLARE_QUERY

#define NCCLSIM_EXPORT_QUERY(ret, name, params, args) \
    SIM_API ret name params { return sim_##name args; } \
    SIM_API ret p##name params { return sim_##name args; }
NCCLTAP_NCCL_QUERIES(NCCLSIM_EXPORT_QUERY)
#undef NCCLSIM_EXPORT_QUERY

/* What tells this library from a real NCCL: the shim looks it up
 * (nccl/real_nccl.c) and the rank file says nccl_simulated, so that every
 * report of a simulated run says so. A function, not a string: both
 * simulators (current and legacy) can be loaded in one process, and
 * AddressSanitizer takes two exported globals of one name for an ODR
 * violation. */
SIM_API const char *ncclsim_marker(void);
SIM_API const char *ncclsim_marker(void) { return "nccltap's simulated NCCL (tests/sim)"; }
