#include "check.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fail.h"
#include "measure.h"

/* What the receive buffers hold before the call: NaN in every floating
 * type, -1 or the maximum in the integers, never an expected value. */
#define SENTINEL 0xFF

void check_init(struct rank_ctx *rk)
{
    rk->corrupt_rank = -1;
    const char *s = getenv("NCCLTAP_BENCH_CORRUPT");
    if (s && *s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || *end || v < 0 || v > INT_MAX)
            bench_die("NCCLTAP_BENCH_CORRUPT wants a rank, not '%s'", s);
        rk->corrupt_rank = (int)v;
    }
    /* cuda_driver_load opened it and never closes it. */
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (lib) {
        *(void **)&rk->memcpy_htod = dlsym(lib, "cuMemcpyHtoD_v2");
        *(void **)&rk->memcpy_dtoh = dlsym(lib, "cuMemcpyDtoH_v2");
    }
    if (!rk->memcpy_htod || !rk->memcpy_dtoh || !rk->drv.cuCtxSynchronize)
        bench_die("--check: the CUDA driver has no cuMemcpyHtoD_v2, cuMemcpyDtoH_v2 "
                  "or cuCtxSynchronize");
}

static void copy_check(const struct rank_ctx *rk, CUresult r, const char *fn)
{
    if (r == CUDA_ERROR_NOT_SUPPORTED)
        bench_die("--check: %s failed: %s (on the simulator, set NCCLSIM_DATA=1)",
                  fn, cuda_driver_error(&rk->drv, r));
    cu_check(&rk->drv, r, fn);
}

static void copy_in(const struct rank_ctx *rk, CUdeviceptr dst, const void *src, size_t n)
{
    if (n)
        copy_check(rk, rk->memcpy_htod(dst, src, n), "cuMemcpyHtoD_v2");
}

static void copy_out(const struct rank_ctx *rk, void *dst, CUdeviceptr src, size_t n)
{
    if (n)
        copy_check(rk, rk->memcpy_dtoh(dst, src, n), "cuMemcpyDtoH_v2");
}

/* The largest integer up to which the type counts exactly (uint8 one less:
 * 255 is the pattern of the receive buffers). */
static unsigned long long exact_max(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: return 127;
    case ncclUint8: return 254;
    case ncclFloat16: return 2048;
    case ncclBfloat16: return 256;
    case ncclFloat8e4m3: return 16;
    case ncclFloat8e5m2: return 8;
    default: return 1u << 20;
    }
}

/* What rank r sends at index j: in [0, m). */
static unsigned long long value(int r, size_t j, unsigned long long m)
{
    return ((unsigned long long)r * 131u + (unsigned long long)j * 7u + 3u) % m;
}

/* k, exact, in a format of E exponent and M mantissa bits (half, bfloat16,
 * fp8): exact_max keeps every k representable. */
static unsigned minifloat(unsigned long long k, int E, int M)
{
    if (k == 0)
        return 0;
    int e = 63 - __builtin_clzll(k);
    unsigned long long frac = k - (1ull << e);
    frac = e <= M ? frac << (M - e) : frac >> (e - M);
    return (unsigned)(((unsigned long long)(e + (1 << (E - 1)) - 1) << M) | frac);
}

/* The bytes of k in the type (integers little-endian, as the GPUs and
 * hosts NCCL runs on). */
static void encode(unsigned char *p, ncclDataType_t t, size_t ts, unsigned long long k)
{
    float f;
    double d;
    uint16_t h;
    switch (t) {
    case ncclFloat32: f = (float)k; memcpy(p, &f, 4); break;
    case ncclFloat64: d = (double)k; memcpy(p, &d, 8); break;
    case ncclFloat16: h = (uint16_t)minifloat(k, 5, 10); memcpy(p, &h, 2); break;
    case ncclBfloat16: h = (uint16_t)minifloat(k, 8, 7); memcpy(p, &h, 2); break;
    case ncclFloat8e4m3: p[0] = (unsigned char)minifloat(k, 4, 3); break;
    case ncclFloat8e5m2: p[0] = (unsigned char)minifloat(k, 5, 2); break;
    default: memcpy(p, &k, ts); break;
    }
}

static void fill(unsigned char *p, size_t n, int rank, ncclDataType_t t, size_t ts,
                 unsigned long long m)
{
    for (size_t j = 0; j < n; j++)
        encode(p + j * ts, t, ts, value(rank, j, m));
}

/* Element j of rank `me`'s result (ncclSum for the reductions). */
static unsigned long long expected(enum bench_op op, size_t j, size_t count, int me, int n,
                                   int root, unsigned long long m)
{
    size_t mine = (size_t)me * count;
    unsigned long long s = 0;
    switch (op) {
    case OP_ALLREDUCE: case OP_REDUCE:
        for (int r = 0; r < n; r++)
            s += value(r, j, m);
        return s;
    case OP_REDUCESCATTER:
        for (int r = 0; r < n; r++)
            s += value(r, mine + j, m);
        return s;
    case OP_BROADCAST:
        return value(root, j, m);
    case OP_ALLGATHER: case OP_GATHER:
        return value((int)(j / count), j % count, m);
    case OP_ALLTOALL:
        return value((int)(j / count), mine + j % count, m);
    case OP_SCATTER:
        return value(root, mine + j, m);
    default:    /* sendrecv: from the previous rank of the ring */
        return value((me - 1 + n) % n, j, m);
    }
}

long long check_step(struct worker *w, enum bench_op op, size_t count, int variant)
{
    struct rank_ctx *rk = w->rk;
    const struct cuda_driver *drv = &rk->drv;
    const struct bench_opts *o = rk->o;
    ncclDataType_t t = o->dtype->nccl;
    size_t ts = dtype_size(o->dtype);
    int me = rk->rank, n = rk->world, root = o->root;
    struct op_layout l;
    op_layout(op, count, me, n, variant == VAR_IN_PLACE, &l);
    struct op_call c;
    measure_call(w, op, count, variant, &c);
    unsigned long long m = exact_max(t) / (unsigned long long)(op_reduces(op) ? n : 1) + 1;
    /* Broadcast and Scatter read the root's send buffer only. */
    bool sends = (op != OP_BROADCAST && op != OP_SCATTER) || me == root;
    unsigned char *h = w->host;

    /* The timed calls must be done with the buffers before they are filled. */
    CU_CHECK(drv, cuStreamSynchronize, (w->stream));
    if (variant == VAR_IN_PLACE) {
        memset(h, SENTINEL, l.extent * ts);
        if (sends)
            fill(h + l.send_off * ts, l.send_elems, me, t, ts, m);
        copy_in(rk, w->recv, h, l.extent * ts);
    } else {
        memset(h, SENTINEL, l.send_elems * ts);
        if (sends)
            fill(h, l.send_elems, me, t, ts, m);
        copy_in(rk, w->send, h, l.send_elems * ts);
        memset(h, SENTINEL, l.recv_elems * ts);
        copy_in(rk, w->recv, h, l.recv_elems * ts);
    }
    /* A copy from pageable memory may return before its DMA has landed,
     * and it runs on the legacy stream, which the bench's non-blocking
     * stream does not wait for: without this the call can read buffers
     * half filled (seen on H100s, as wrong elements in some columns). */
    CU_CHECK(drv, cuCtxSynchronize, ());
    /* One call, grouped only where it must be (Send with Recv). */
    measure_issue(op, &c, 1, op == OP_SENDRECV, 0, 0);
    CU_CHECK(drv, cuStreamSynchronize, (w->stream));

    if ((op == OP_REDUCE || op == OP_GATHER) && me != root)
        return 0;
    CUdeviceptr out = (CUdeviceptr)(uintptr_t)c.recv;
    if (me == rk->corrupt_rank && l.recv_elems > 0) {
        unsigned char e[8];
        copy_out(rk, e, out, ts);
        e[0] ^= 1;
        copy_in(rk, out, e, ts);
        CU_CHECK(drv, cuCtxSynchronize, ());
    }
    copy_out(rk, h, out, l.recv_elems * ts);
    long long wrong = 0;
    unsigned char want[8];
    for (size_t j = 0; j < l.recv_elems; j++) {
        encode(want, t, ts, expected(op, j, count, me, n, root, m));
        wrong += memcmp(h + j * ts, want, ts) != 0;
    }
    return wrong;
}
