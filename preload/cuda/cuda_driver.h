/* The CUDA driver, loaded at run time. Shared by the shim and the bench. */
#ifndef NCCLTAP_CUDA_DRIVER_H
#define NCCLTAP_CUDA_DRIVER_H

#include <stddef.h>
#include "abi/cuda_abi.h"

struct cuda_driver {
#define NCCLTAP_CU_FIELD(field, symbol, ret, params) ret (*field) params;
    NCCLTAP_CUDA_API(NCCLTAP_CU_FIELD)
#undef NCCLTAP_CU_FIELD
};

/* Loads libcuda.so.1 (or `path` when not NULL) and resolves every entry.
 * Returns 0 on success; otherwise -1 with a reason in `why` (the library is
 * absent, or cuInit failed). Entries the driver lacks are left NULL. */
int cuda_driver_load(struct cuda_driver *drv, const char *path, char *why, size_t why_len);

/* "CUDA_ERROR_..." text for a result, never NULL. */
const char *cuda_driver_error(const struct cuda_driver *drv, CUresult r);

#endif
