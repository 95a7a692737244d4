/* NCCL 2.30.3's parameter API, key-based (src/nccl.h.in):
 * ncclParamGetAllParameterKeys gives the published parameters' keys and
 * ncclParamGetParameter one's effective value as a string, both in
 * thread-local buffers valid until the next call on the thread, as
 * NCCL's are. A value is the environment's (where NCCL's configuration
 * files put theirs too) or the parameter's default; NCCLSIM_PARAM_BUILD=1
 * gives the defaults of another NCCL build, which the environment does
 * not show. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_internal.h"
#include "sim_env.h"

struct sim_param {
    const char *key;
    const char *defaults[2];  /* by NCCLSIM_PARAM_BUILD */
};

static const struct sim_param published[] = {
    { "NCCL_ALGO", { "", "" } },
    { "NCCL_BUFFSIZE", { "4194304", "8388608" } },
    { "NCCL_DEBUG", { "", "" } },
    { "NCCL_NTHREADS", { "512", "256" } },
    { "NCCL_PROTO", { "", "" } },
};
#define NPUBLISHED (sizeof published / sizeof *published)

ncclResult_t sim_ncclParamGetAllParameterKeys(const char ***table, int *tableLen)
{
    static _Thread_local const char *keys[NPUBLISHED];
    if (!table || !tableLen)
        return ncclInvalidArgument;
    for (size_t i = 0; i < NPUBLISHED; i++)
        keys[i] = published[i].key;
    *table = keys;
    *tableLen = (int)NPUBLISHED;
    return ncclSuccess;
}

ncclResult_t sim_ncclParamGetParameter(const char *key, const char **value, int *valueLen)
{
    static _Thread_local char held[256];
    if (!key || !value || !valueLen)
        return ncclInvalidArgument;
    for (size_t i = 0; i < NPUBLISHED; i++) {
        if (strcmp(published[i].key, key) != 0)
            continue;
        const char *env = getenv(key);
        snprintf(held, sizeof held, "%s", env ? env : published[i].defaults[sim_knob_long(SIM_PARAM_BUILD) == 1]);
        *value = held;
        *valueLen = (int)strlen(held);
        return ncclSuccess;
    }
    *value = NULL;
    *valueLen = 0;
    return ncclInvalidArgument;
}
