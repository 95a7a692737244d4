/* Device memory: unique, aligned addresses with nothing behind them, so
 * that a benchmark can "allocate" gigabytes on a laptop. The addresses are
 * remembered only to validate frees, memsets and copies.
 *
 * With NCCLSIM_DATA=1 an allocation is host memory instead (mapped lazily),
 * memsets and copies are real, and the simulated NCCL moves data through
 * it: what a data check (nccltap-bench --check) needs. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cuda_internal.h"
#include "sim_env.h"

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

static pthread_once_t data_once = PTHREAD_ONCE_INIT;
static int data_on;

static void read_data_knob(void)
{
    data_on = (int)sim_knob_long(SIM_DATA);
}

static int data_mode(void)
{
    pthread_once(&data_once, read_data_knob);
    return data_on;
}

/* Whether [addr, addr + n) lies in one live allocation (lock held). */
static int in_live(CUdeviceptr addr, size_t n)
{
    for (size_t i = 0; i < nlive; i++)
        if (addr >= live[i].addr && n <= live[i].size && addr - live[i].addr <= live[i].size - n)
            return 1;
    return 0;
}

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
    if (r == CUDA_SUCCESS && data_mode()) {
        /* Pages appear when touched: allocating stays cheap. */
        void *p = mmap(NULL, span, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            r = SIM_CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            live[nlive++] = (struct alloc){ (CUdeviceptr)(uintptr_t)p, bytesize };
            *dptr = (CUdeviceptr)(uintptr_t)p;
        }
    } else if (r == CUDA_SUCCESS) {
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
            if (data_mode())
                munmap((void *)(uintptr_t)dptr, (live[i].size + ALIGN - 1) & ~(ALIGN - 1));
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
    pthread_mutex_lock(&mem_lock);
    CUresult r = in_live(dstDevice, N) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_unlock(&mem_lock);
    /* Without NCCLSIM_DATA there are no bytes to set. */
    if (r == CUDA_SUCCESS && data_mode())
        memset((void *)(uintptr_t)dstDevice, uc, N);
    return r;
}

/* Copies are synchronous, as with pageable host memory; the work queued on
 * streams has no data, so there is nothing to order them with. Without
 * NCCLSIM_DATA there is nothing to copy: CUDA_ERROR_NOT_SUPPORTED. */
static CUresult check_copy(CUdeviceptr dev, const void *host, size_t n)
{
    SIM_REQUIRE_INIT();
    if (!host)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&mem_lock);
    CUresult r = in_live(dev, n) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_unlock(&mem_lock);
    if (r == CUDA_SUCCESS && !data_mode())
        r = CUDA_ERROR_NOT_SUPPORTED;
    return r;
}

SIM_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    CUresult r = check_copy(dstDevice, srcHost, ByteCount);
    if (r == CUDA_SUCCESS)
        memcpy((void *)(uintptr_t)dstDevice, srcHost, ByteCount);
    return r;
}

SIM_API CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    CUresult r = check_copy(srcDevice, dstHost, ByteCount);
    if (r == CUDA_SUCCESS)
        memcpy(dstHost, (const void *)(uintptr_t)srcDevice, ByteCount);
    return r;
}
