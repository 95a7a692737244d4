/* Device memory: unique, aligned addresses with nothing behind them, so
 * that a benchmark can "allocate" gigabytes on a laptop. The addresses are
 * remembered only to validate frees and memsets. */
#include <pthread.h>
#include <stdlib.h>

#include "cuda_internal.h"

/* Far from where Linux maps host memory, so that dereferencing one on the
 * host faults instead of silently touching something. */
#define VA_BASE 0x200000000000ull
#define VA_LIMIT 0x600000000000ull
#define ALIGN 512ull   /* cudaMalloc guarantees at least 256 */

struct alloc { CUdeviceptr addr; size_t size; };

static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static CUdeviceptr next_va = VA_BASE;
static struct alloc *live;
static size_t nlive, cap;

SIM_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    SIM_REQUIRE_INIT();
    if (!dptr || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!sim_current_ctx())
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&mem_lock);
    unsigned long long span = (bytesize + ALIGN - 1) & ~(ALIGN - 1);
    if (span < bytesize || span > VA_LIMIT - next_va) {
        r = SIM_CUDA_ERROR_OUT_OF_MEMORY;
    } else if (nlive == cap) {
        size_t ncap = cap ? 2 * cap : 64;
        struct alloc *n = realloc(live, ncap * sizeof *n);
        if (n) {
            live = n;
            cap = ncap;
        } else {
            r = SIM_CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    if (r == CUDA_SUCCESS) {
        live[nlive++] = (struct alloc){ next_va, bytesize };
        *dptr = next_va;
        next_va += span;   /* never reused: a stale pointer stays invalid */
    }
    pthread_mutex_unlock(&mem_lock);
    return r;
}

SIM_API CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    SIM_REQUIRE_INIT();
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&mem_lock);
    for (size_t i = 0; i < nlive; i++) {
        if (live[i].addr == dptr) {
            live[i] = live[--nlive];
            r = CUDA_SUCCESS;
            break;
        }
    }
    pthread_mutex_unlock(&mem_lock);
    return r;
}

SIM_API CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    SIM_REQUIRE_INIT();
    (void)uc;   /* there are no bytes to set */
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&mem_lock);
    for (size_t i = 0; i < nlive; i++) {
        if (dstDevice >= live[i].addr && N <= live[i].size &&
            dstDevice - live[i].addr <= live[i].size - N) {
            r = CUDA_SUCCESS;
            break;
        }
    }
    pthread_mutex_unlock(&mem_lock);
    return r;
}
