/* cuGetProcAddress, answered: cudart (PyTorch, nccl-tests -G) gets every
 * driver entry point through the driver's cuGetProcAddress(_v2), which it
 * looks up with dlsym on its own handle of libcuda, so cudaGraphLaunch
 * never reaches an exported wrapper. dlsym_hook.c hands such lookups the
 * wrappers here, each calling the very function the lookup found; they
 * call it and, where it returned one of the graph entry points nccltap
 * follows (abi/cuda_abi.h's NCCLTAP_CUDA_GRAPH_API), hand back a wrapper
 * that calls the driver's pointer through graph_hooks.h's bodies.
 *
 * Which function the driver returned is known from the request, as the
 * driver chooses it (cuGetProcAddress in the driver API's reference): the
 * base name, the newest variant introduced at or before the version asked
 * for (never above the driver's own version), and with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (flags 0 for
 * cuGetProcAddress_v2_ptsz) the _ptsz twin where there is one. Variants
 * that differ in parameters differ by version only; twins have the same
 * parameters.
 *
 * The lookup functions themselves are not exported: a program that calls
 * them through the dynamic linker (linked against libcuda.so.1) is not
 * followed, and a program probing for the driver with dlsym(RTLD_DEFAULT)
 * finds none where none is loaded.
 *
 * Each variant keeps one driver pointer, the first returned for it (the
 * lookups two: a driver may answer "cuGetProcAddress" with another
 * function than the symbol dlsym finds); a later different one (a second
 * driver, another tool wrapping this one) is handed back as it is and
 * said once. Any thread; entry-point lookups are not the hot path (cudart
 * makes them once); the wrappers handed out cost what the exported ones
 * do. */
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "abi/cuda_abi.h"
#include "base/log.h"
#include "entry/graph_hooks.h"
#include "entry/proc_address.h"

#define TAP_PROC_FN(name, ret, params, args) typedef ret(*name##_fn) params;
NCCLTAP_CUDA_PROC_API(TAP_PROC_FN)
#undef TAP_PROC_FN

enum variant {
    V_INST, V_INST_V2, V_INST_12000, V_INST_FLAGS, V_INST_PARAMS, V_INST_PARAMS_PTSZ, V_LAUNCH, V_LAUNCH_PTSZ,
    V_UPDATE, V_UPDATE_V2, V_EXEC_DESTROY, V_DESTROY,
    /* Each lookup twice: dlsym's answer (the exported symbol) and the
     * driver's answer for "cuGetProcAddress" may be two functions. */
    V_GPA, V_GPA_B, V_GPA_V2, V_GPA_V2_B, V_GPA_V2_PTSZ, V_GPA_V2_PTSZ_B, NVARIANTS
};

/* The driver's function behind each variant's wrapper. */
static _Atomic(void *) real[NVARIANTS];
#define REAL(v, type) ((type)atomic_load_explicit(&real[v], memory_order_acquire))

/* What answer() needs to know of the lookup it follows: the driver's
 * function that answered (one of the two kinds), and flags 0's meaning. */
struct lookup {
    cuGetProcAddress_fn v1;
    cuGetProcAddress_v2_fn v2;
    bool ptsz_default;
};
static void answer(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags, struct lookup how);

static CUresult w_inst(CUgraphExec *ph, CUgraph g, CUgraphNode *err, char *log, size_t n)
{
    return tap_graph_instantiate_done(REAL(V_INST, cuGraphInstantiate_fn)(ph, g, err, log, n), ph, g);
}

static CUresult w_inst_v2(CUgraphExec *ph, CUgraph g, CUgraphNode *err, char *log, size_t n)
{
    return tap_graph_instantiate_done(REAL(V_INST_V2, cuGraphInstantiate_v2_fn)(ph, g, err, log, n), ph, g);
}

/* CUDA 12's cuGraphInstantiate: WithFlags' parameters. */
static CUresult w_inst_12000(CUgraphExec *ph, CUgraph g, unsigned long long flags)
{
    return tap_graph_instantiate_done(REAL(V_INST_12000, cuGraphInstantiateWithFlags_fn)(ph, g, flags), ph, g);
}

static CUresult w_inst_flags(CUgraphExec *ph, CUgraph g, unsigned long long flags)
{
    return tap_graph_instantiate_done(REAL(V_INST_FLAGS, cuGraphInstantiateWithFlags_fn)(ph, g, flags), ph, g);
}

static CUresult w_inst_params(CUgraphExec *ph, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    return tap_graph_instantiate_done(REAL(V_INST_PARAMS, cuGraphInstantiateWithParams_fn)(ph, g, p), ph, g);
}

static CUresult w_inst_params_ptsz(CUgraphExec *ph, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    return tap_graph_instantiate_done(REAL(V_INST_PARAMS_PTSZ, cuGraphInstantiateWithParams_fn)(ph, g, p), ph, g);
}

static CUresult w_launch(CUgraphExec x, CUstream s)
{
    return tap_graph_launch(REAL(V_LAUNCH, cuGraphLaunch_fn), x, s, s);
}

static CUresult w_launch_ptsz(CUgraphExec x, CUstream s)
{
    return tap_graph_launch(REAL(V_LAUNCH_PTSZ, cuGraphLaunch_fn), x, s, s ? s : CU_STREAM_PER_THREAD);
}

static CUresult w_update(CUgraphExec x, CUgraph g, CUgraphNode *err, int *result)
{
    return tap_graph_update_done(REAL(V_UPDATE, cuGraphExecUpdate_fn)(x, g, err, result), x, g);
}

static CUresult w_update_v2(CUgraphExec x, CUgraph g, CUgraphExecUpdateResultInfo *info)
{
    return tap_graph_update_done(REAL(V_UPDATE_V2, cuGraphExecUpdate_v2_fn)(x, g, info), x, g);
}

static CUresult w_exec_destroy(CUgraphExec x)
{
    return tap_graph_exec_destroy(REAL(V_EXEC_DESTROY, cuGraphExecDestroy_fn), REAL(V_DESTROY, cuGraphDestroy_fn), x);
}

static CUresult w_destroy(CUgraph g)
{
    return tap_graph_destroy(REAL(V_DESTROY, cuGraphDestroy_fn), g);
}

static CUresult gpa_v1(enum variant v, const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    cuGetProcAddress_fn fn = REAL(v, cuGetProcAddress_fn);
    CUresult r = fn(symbol, pfn, cudaVersion, flags);
    if (r == CUDA_SUCCESS)
        answer(symbol, pfn, cudaVersion, flags, (struct lookup){fn, NULL, false});
    return r;
}

static CUresult gpa_v2(enum variant v, bool ptsz, const char *symbol, void **pfn, int cudaVersion,
                       cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    cuGetProcAddress_v2_fn fn = REAL(v, cuGetProcAddress_v2_fn);
    CUresult r = fn(symbol, pfn, cudaVersion, flags, symbolStatus);
    if (r == CUDA_SUCCESS)
        answer(symbol, pfn, cudaVersion, flags, (struct lookup){NULL, fn, ptsz});
    return r;
}

#define W_GPA_V1(w, v)                                                                      \
    static CUresult w(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)    \
    {                                                                                       \
        return gpa_v1(v, symbol, pfn, cudaVersion, flags);                                  \
    }
#define W_GPA_V2(w, v, ptsz)                                                                \
    static CUresult w(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,    \
                      CUdriverProcAddressQueryResult *symbolStatus)                         \
    {                                                                                       \
        return gpa_v2(v, ptsz, symbol, pfn, cudaVersion, flags, symbolStatus);              \
    }
W_GPA_V1(w_gpa, V_GPA)
W_GPA_V1(w_gpa_b, V_GPA_B)
W_GPA_V2(w_gpa_v2, V_GPA_V2, false)
W_GPA_V2(w_gpa_v2_b, V_GPA_V2_B, false)
W_GPA_V2(w_gpa_v2_ptsz, V_GPA_V2_PTSZ, true)
W_GPA_V2(w_gpa_v2_ptsz_b, V_GPA_V2_PTSZ_B, true)

enum stream_kind { EITHER, LEGACY, PER_THREAD };

struct variant_row {
    const char *symbol; /* the base name asked for */
    int since, until;   /* the versions [since, until) that get it; until 0: all since */
    enum stream_kind stream;
    void *wrapper;
};

#define W(fn) ((void *)(uintptr_t)(fn))
static const struct variant_row rows[NVARIANTS] = {
    [V_INST] = {"cuGraphInstantiate", 10000, 11000, EITHER, W(w_inst)},
    [V_INST_V2] = {"cuGraphInstantiate", 11000, 12000, EITHER, W(w_inst_v2)},
    [V_INST_12000] = {"cuGraphInstantiate", 12000, 0, EITHER, W(w_inst_12000)},
    [V_INST_FLAGS] = {"cuGraphInstantiateWithFlags", 11040, 0, EITHER, W(w_inst_flags)},
    [V_INST_PARAMS] = {"cuGraphInstantiateWithParams", 12000, 0, LEGACY, W(w_inst_params)},
    [V_INST_PARAMS_PTSZ] = {"cuGraphInstantiateWithParams", 12000, 0, PER_THREAD, W(w_inst_params_ptsz)},
    [V_LAUNCH] = {"cuGraphLaunch", 10000, 0, LEGACY, W(w_launch)},
    [V_LAUNCH_PTSZ] = {"cuGraphLaunch", 10000, 0, PER_THREAD, W(w_launch_ptsz)},
    [V_UPDATE] = {"cuGraphExecUpdate", 10020, 12000, EITHER, W(w_update)},
    [V_UPDATE_V2] = {"cuGraphExecUpdate", 12000, 0, EITHER, W(w_update_v2)},
    [V_EXEC_DESTROY] = {"cuGraphExecDestroy", 10000, 0, EITHER, W(w_exec_destroy)},
    [V_DESTROY] = {"cuGraphDestroy", 10000, 0, EITHER, W(w_destroy)},
    [V_GPA] = {"cuGetProcAddress", 11030, 12000, EITHER, W(w_gpa)},
    [V_GPA_B] = {"cuGetProcAddress", 11030, 12000, EITHER, W(w_gpa_b)},
    [V_GPA_V2] = {"cuGetProcAddress", 12000, 0, LEGACY, W(w_gpa_v2)},
    [V_GPA_V2_B] = {"cuGetProcAddress", 12000, 0, LEGACY, W(w_gpa_v2_b)},
    [V_GPA_V2_PTSZ] = {"cuGetProcAddress", 12000, 0, PER_THREAD, W(w_gpa_v2_ptsz)},
    [V_GPA_V2_PTSZ_B] = {"cuGetProcAddress", 12000, 0, PER_THREAD, W(w_gpa_v2_ptsz_b)},
};

static bool same_row(const struct variant_row *a, const struct variant_row *b)
{
    return strcmp(a->symbol, b->symbol) == 0 && a->since == b->since && a->stream == b->stream;
}

/* The wrapper for the driver's `fn` behind variant v (or its spare row),
 * or fn itself where each already has another driver function. */
static void *adopt(enum variant v, void *fn)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    for (int w = v; w < NVARIANTS && same_row(&rows[w], &rows[v]); w++) {
        void *expect = NULL;
        if (atomic_compare_exchange_strong_explicit(&real[w], &expect, fn, memory_order_acq_rel,
                                                    memory_order_acquire) ||
            expect == fn)
            return rows[w].wrapper;
    }
    TAP_LOG_ONCE(said, "%s: another driver function for one entry point (another CUDA driver or tool); graphs "
                 "launched through it are not counted", rows[v].symbol);
    return fn;
}

static bool is_wrapper(const void *fn)
{
    for (int v = 0; v < NVARIANTS; v++)
        if (rows[v].wrapper == fn)
            return true;
    return false;
}

/* The driver's version (cuDriverGetVersion, looked up as the lookup being
 * followed looks up), INT_MAX where it cannot say. */
static int driver_version(struct lookup how)
{
    static _Atomic int cached;
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v)
        return v;
    CUresult (*get)(int *) = NULL;
    void *p = NULL;
    CUresult r = how.v2 ? how.v2("cuDriverGetVersion", &p, 2020, CU_GET_PROC_ADDRESS_DEFAULT, NULL)
                        : how.v1("cuDriverGetVersion", &p, 2020, CU_GET_PROC_ADDRESS_DEFAULT);
    if (r == CUDA_SUCCESS)
        *(void **)&get = p;
    if (!get || get(&v) != CUDA_SUCCESS || v <= 0)
        v = INT_MAX;
    atomic_store_explicit(&cached, v, memory_order_relaxed);
    return v;
}

/* After the driver answered symbol with *pfn: nccltap's wrapper instead,
 * where it is a graph entry point nccltap follows. */
static void answer(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags, struct lookup how)
{
    if (!symbol || !pfn || !*pfn || strncmp(symbol, "cu", 2) != 0 || is_wrapper(*pfn))
        return;
    if (!strstr(symbol, "Graph") && strcmp(symbol, "cuGetProcAddress") != 0)
        return;
    int dv = driver_version(how);
    int version = cudaVersion < dv ? cudaVersion : dv;
    bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) ||
                      (how.ptsz_default && flags == CU_GET_PROC_ADDRESS_DEFAULT);
    for (int v = 0; v < NVARIANTS; v++) {
        const struct variant_row *w = &rows[v];
        if (strcmp(symbol, w->symbol) != 0 || version < w->since || (w->until && version >= w->until))
            continue;
        if ((w->stream == LEGACY && per_thread) || (w->stream == PER_THREAD && !per_thread))
            continue;
        *pfn = adopt((enum variant)v, *pfn);
        return;
    }
}

void *tap_proc_address_lookup(const char *name, void *found)
{
    enum variant v = !strcmp(name, "cuGetProcAddress")           ? V_GPA
                     : !strcmp(name, "cuGetProcAddress_v2")      ? V_GPA_V2
                     : !strcmp(name, "cuGetProcAddress_v2_ptsz") ? V_GPA_V2_PTSZ
                                                                 : NVARIANTS;
    if (v == NVARIANTS || !found || is_wrapper(found))
        return found;
    return adopt(v, found);
}
