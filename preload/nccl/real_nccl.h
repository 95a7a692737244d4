/* The real NCCL functions behind the wrappers. */
#ifndef NCCLTAP_REAL_NCCL_H
#define NCCLTAP_REAL_NCCL_H

#include <stdatomic.h>
#include <stdbool.h>

#include "abi/nccl_abi.h"

struct real_nccl {
#define NCCLTAP_REAL_FIELD(name, params, args, kind) ncclResult_t (*name) params, (*p##name) params;
    /* ncclX and its pncclX twin (NCCL exports both; a profiler that
     * wraps ncclX calls pncclX), resolved apart. */
    NCCLTAP_NCCL_API(NCCLTAP_REAL_FIELD)
#undef NCCLTAP_REAL_FIELD
#define NCCLTAP_REAL_QUERY_FIELD(ret, name, params, args) ret (*name) params;
    NCCLTAP_NCCL_QUERIES(NCCLTAP_REAL_QUERY_FIELD)
#undef NCCLTAP_REAL_QUERY_FIELD
    int version; /* NCCL_VERSION_CODE, 0 if unknown */
    bool simulated; /* the library is nccltap's simulator (it exports ncclsim_marker) */
    bool passive;   /* another copy of nccltap is ahead of this one: call through (shim_copy.h) */
};

/* Resolved on first use, thread-safely and without a lock (real_nccl.c
 * says why): dlsym(RTLD_NEXT); or, with NCCLTAP_NCCL_LIBRARY, that
 * library; or a loaded libnccl.so* outside the global scope; or the NCCL
 * in the scope of `caller` (an address in the code that called: a library
 * that loaded its NCCL privately). A function the library lacks is NULL.
 * Inline: every wrapped call starts here. */
extern struct real_nccl *_Atomic tap_real_nccl_current;
const struct real_nccl *real_nccl_resolve(const void *caller);

static inline const struct real_nccl *real_nccl(const void *caller)
{
    const struct real_nccl *r = atomic_load_explicit(&tap_real_nccl_current, memory_order_acquire);
    if (__builtin_expect(r != NULL, 1))
        return r;
    return real_nccl_resolve(caller);
}

/* When a function was not found: looks for NCCL again, from `caller` too,
 * if none was found before (it may have been loaded since). */
const struct real_nccl *real_nccl_retry(const void *caller);

/* Whether this thread is inside the resolution above (its dlsym calls are
 * nccltap's own, wherever they come from). */
bool real_nccl_resolving(void);

/* Whether the loaded object at `path` is a libnccl.so by its file name
 * (how NCCL outside the global scope is found, and how nccltap tells which
 * object is NCCL when none of its calls came through). */
bool real_nccl_is_library(const char *path);

/* What a wrapper returns for a function the real library lacks; says so on
 * stderr the first time for each function. */
ncclResult_t real_nccl_missing(const char *name);

#endif
