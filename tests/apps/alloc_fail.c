/* An allocator that runs out of memory on request, for the tests of what
 * the shim does then. Preloaded beside the shim, it passes every calloc
 * and realloc on to the next definition (libc's, or a sanitizer's) until a
 * test arms it: from then on, allocations of exactly the armed size fail
 * after the first `after` of them, with ENOMEM. The test program finds
 * alloc_fail_arm with dlsym(RTLD_DEFAULT, ...), so that it runs without
 * this library too. Any thread. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static _Atomic size_t armed_size;
static _Atomic long successes_left;

void alloc_fail_arm(size_t size, long after);
void alloc_fail_arm(size_t size, long after)
{
    atomic_store(&successes_left, after);
    atomic_store(&armed_size, size);
}

static int should_fail(size_t size)
{
    return size && size == atomic_load_explicit(&armed_size, memory_order_relaxed) &&
           atomic_fetch_sub(&successes_left, 1) <= 0;
}

/* dlsym may itself allocate: those few early calls are served here. */
static _Alignas(16) unsigned char early[4096];
static _Atomic size_t early_used;

static void *early_calloc(size_t n, size_t size)
{
    size_t bytes = (n * size + 15) & ~(size_t)15;
    size_t at = atomic_fetch_add(&early_used, bytes);
    return at + bytes <= sizeof early ? early + at : NULL; /* zero: static */
}

void *calloc(size_t n, size_t size)
{
    static void *(*_Atomic next)(size_t, size_t);
    static __thread int resolving; /* this thread is in dlsym */
    if (n && size > SIZE_MAX / n)
        return errno = ENOMEM, NULL;
    if (should_fail(n * size))
        return errno = ENOMEM, NULL;
    void *(*fn)(size_t, size_t) = atomic_load(&next);
    if (!fn) {
        if (resolving)
            return early_calloc(n, size);
        resolving = 1;
        fn = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
        resolving = 0;
        atomic_store(&next, fn);
    }
    return fn(n, size);
}

void *realloc(void *p, size_t size)
{
    static void *(*_Atomic next)(void *, size_t);
    if (should_fail(size))
        return errno = ENOMEM, NULL;
    void *(*fn)(void *, size_t) = atomic_load(&next);
    if (!fn) {
        fn = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
        atomic_store(&next, fn);
    }
    return fn(p, size);
}
