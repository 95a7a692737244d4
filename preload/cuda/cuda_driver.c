#include "cuda/cuda_driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int cuda_driver_load(struct cuda_driver *drv, const char *path, char *why, size_t why_len)
{
    memset(drv, 0, sizeof *drv);
    void *lib = dlopen(path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, why_len, "cannot load the CUDA driver: %s", dlerror());
        return -1;
    }
#define NCCLTAP_CU_RESOLVE(field, symbol, ret, params) \
    *(void **)&drv->field = dlsym(lib, symbol);
    NCCLTAP_CUDA_API(NCCLTAP_CU_RESOLVE)
#undef NCCLTAP_CU_RESOLVE
    /* CUDA 12.8 renamed the elapsed-time entry; older drivers have only v1. */
    void *elapsed_v2 = dlsym(lib, "cuEventElapsedTime_v2");
    if (elapsed_v2)
        *(void **)&drv->cuEventElapsedTime = elapsed_v2;
    if (!drv->cuInit || !drv->cuEventCreate || !drv->cuEventRecord ||
        !drv->cuEventQuery || !drv->cuEventElapsedTime || !drv->cuCtxGetCurrent) {
        snprintf(why, why_len, "the CUDA driver lacks entry points nccltap needs");
        return -1;
    }
    CUresult r = drv->cuInit(0);
    if (r != CUDA_SUCCESS) {
        snprintf(why, why_len, "cuInit failed: %s", cuda_driver_error(drv, r));
        return -1;
    }
    return 0;
}

const char *cuda_driver_error(const struct cuda_driver *drv, CUresult r)
{
    const char *s = NULL;
    if (drv->cuGetErrorString && drv->cuGetErrorString(r, &s) == CUDA_SUCCESS && s)
        return s;
    return "unknown CUDA error";
}
