/* dlsym, interposed: a program that finds NCCL's functions itself
 * (`dlopen` then `dlsym(handle, "ncclAllReduce")`, as ctypes, cffi and
 * XGBoost's nccl_stub do) gets nccltap's wrapper, as a linked call does.
 *
 * The exported `dlsym` is a few instructions of assembly: it asks
 * tap_dlsym_decide() and either returns its answer or jumps (a tail jump,
 * the caller's return address still on the stack) to the next dlsym, the
 * C library's or another preloaded tool's. glibc's dlsym reads its return
 * address to know who calls (RTLD_NEXT, RTLD_DEFAULT): a C wrapper that
 * called it would make every lookup of every program look like nccltap's.
 *
 * Answered here, only for a name of abi/nccl_api.def's table, ncclX or its
 * twin pncclX, looked up by anyone but nccltap itself and a library that
 * defines that name (another tool wrapping NCCL, or NCCL: their lookups
 * want the next definition, and answering them would make a loop): the
 * wrapper's address, as the global scope has it (a tool preloaded ahead
 * of nccltap keeps its place), when the lookup would have found the very
 * NCCL the wrapper calls (same object as nccltap's resolved function).
 * For RTLD_NEXT, which only the caller's own dlsym can answer, the
 * wrapper is returned when that NCCL is loaded at all. A lookup that
 * would find nccltap's wrapper of a function the NCCL lacks (or with no
 * NCCL loaded) returns NULL, as without nccltap (dlerror() then says
 * nothing new); RTLD_NEXT's is passed on. Every other lookup
 * costs one call and a compare of the name's first bytes. A passive copy
 * of nccltap (nccl/shim_copy.h) answers nothing.
 *
 * Also answered, on the same terms: "cuGetProcAddress", "_v2" and
 * "_v2_ptsz", the driver's entry-point lookup through which cudart finds
 * the graph functions nccltap follows (proc_address.c): the wrapper that
 * calls what the lookup found (for RTLD_NEXT, the next definition after
 * nccltap), unless that is nccltap's own. Thread-safe;
 * any thread; never allocates but in dlopen(RTLD_NOLOAD) of the caller's
 * object (a lookup of an NCCL name, once per function in practice). */
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "abi/nccl_abi.h"
#include "entry/api_table.h"
#include "entry/proc_address.h"
#include "nccl/real_nccl.h"
#include "nccl/shim_copy.h"

#if defined(__x86_64__) || defined(__aarch64__)

/* The shim's own extent: its lookups pass. real_nccl.c's also when they
 * come back through a tool's dlsym preloaded ahead (real_nccl_resolving). */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char _end[] __attribute__((visibility("hidden")));

/* Not instrumented: a sanitizer's runtime looks up its interceptors
 * through dlsym before it is ready to check anything. */
#define TAP_UNCHECKED __attribute__((no_sanitize("address", "undefined", "thread")))

typedef void *(*dlsym_fn)(void *, const char *);
static _Atomic(dlsym_fn) next_dlsym;
static __thread int deciding __attribute__((tls_model("initial-exec")));

TAP_UNCHECKED static void *no_dlsym(void *handle, const char *name)
{
    (void)handle, (void)name;
    return NULL;
}

/* An optional entry point the NCCL in use lacks: looked up past nccltap,
 * where it is not (or is another tool's, as without nccltap), so that
 * glibc fails the lookup as it would without nccltap and dlerror() says
 * why: a NULL with no error is taken for found by the POSIX idiom
 * `if (!dlerror())`, and crashes ctypes in CPython before 3.13. */
TAP_UNCHECKED static void *absent_dlsym(void *handle, const char *name)
{
    (void)handle;
    dlsym_fn real = atomic_load_explicit(&next_dlsym, memory_order_acquire);
    return real && real != no_dlsym ? real(RTLD_NEXT, name) : NULL;
}

/* The next dlsym after nccltap's. By version first, as other tools find
 * it (nccltap's own carries glibc's versions, exports.map): glibc 2.34
 * moved it into libc.so.6, the older versions are x86-64's and AArch64's
 * first. When that is the C library's, asked from here for the next
 * "dlsym" of any version, it names a tool preloaded after nccltap that
 * exports an unversioned one, or itself. */
TAP_UNCHECKED static dlsym_fn find_next_dlsym(void)
{
    static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"};
    dlsym_fn fn = NULL;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0] && !fn; i++)
        *(void **)&fn = dlvsym(RTLD_NEXT, "dlsym", versions[i]);
    Dl_info mine, libc;
    if (fn && dladdr((void *)(uintptr_t)fn, &mine) && dladdr((void *)(uintptr_t)&dlerror, &libc) &&
        mine.dli_fbase == libc.dli_fbase) {
        dlsym_fn unversioned = (dlsym_fn)(uintptr_t)fn(RTLD_NEXT, "dlsym");
        if (unversioned)
            fn = unversioned;
    }
    if (!fn)
        fn = no_dlsym; /* not glibc: no dlsym to pass to; cannot happen where nccltap builds */
    atomic_store_explicit(&next_dlsym, fn, memory_order_release);
    return fn;
}

static const void *object_of(const void *addr)
{
    Dl_info info;
    return addr && dladdr(addr, &info) ? info.dli_fbase : NULL;
}

/* Whether the object that `ra` is in defines `name` itself. */
static bool caller_defines(dlsym_fn real_dlsym, const char *name, const void *ra)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(ra, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return false;
    /* The main program's handle searches the global scope, the program first. */
    void *h = lm->l_name && lm->l_name[0] ? dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD) : dlopen(NULL, RTLD_LAZY);
    if (!h)
        return false;
    void *def = real_dlsym(h, name);
    dlclose(h);
    return def && object_of(def) == info.dli_fbase;
}

static bool in_shim(const void *p)
{
    return (const char *)p >= __ehdr_start && (const char *)p < _end;
}

/* nccl_answer's "absent": dlsym returns NULL. */
static char absent_tag;
#define ABSENT ((void *)&absent_tag)

/* The wrapper to return for an NCCL name, ABSENT where the lookup would
 * find a wrapper of nccltap's for a function the NCCL lacks (an optional
 * entry point of a newer NCCL than the one in use, or no NCCL loaded: a
 * program probing for it must not be told it is there), or NULL to pass
 * the lookup on. */
static void *nccl_answer(dlsym_fn real_dlsym, void *handle, const struct tap_api_entry *e, const char *name,
                         const void *ra)
{
    if (caller_defines(real_dlsym, name, ra))
        return NULL;
    void *found = handle == RTLD_NEXT ? NULL : real_dlsym(handle, name);
    const struct real_nccl *real = real_nccl(ra);
    void *target = *(void *const *)((const char *)real + e->real_offset);
    if (!target && !real->ncclGetVersion) /* NCCL loaded since nccltap last looked: where the lookup finds it */
        target = *(void *const *)((const char *)real_nccl_retry(found ? found : ra) + e->real_offset);
    if (!target)
        return found && (found == e->wrapper || in_shim(found) || tap_shim_copy_at(found)) ? ABSENT : NULL;
    if (handle == RTLD_NEXT)
        return e->wrapper;
    return found && found != e->wrapper && object_of(found) == object_of(target) ? e->wrapper : NULL;
}

/* The wrapper to return for a cuGetProcAddress name, or NULL to pass. */
static void *proc_answer(dlsym_fn real_dlsym, void *handle, const char *name, const void *ra)
{
    if (caller_defines(real_dlsym, name, ra))
        return NULL;
    void *found = real_dlsym(handle, name);
    if (!found || in_shim(found))
        return NULL;
    void *w = tap_proc_address_lookup(name, found);
    return w != found ? w : NULL;
}

struct tap_dlsym_route {
    void *answer; /* non-NULL: what dlsym returns */
    dlsym_fn next; /* else: the dlsym to jump to */
};

struct tap_dlsym_route tap_dlsym_decide(void *handle, const char *name, const void *ra);

/* Called by the assembly below with the caller's return address. */
TAP_UNCHECKED __attribute__((visibility("hidden"))) struct tap_dlsym_route
tap_dlsym_decide(void *handle, const char *name, const void *ra)
{
    struct tap_dlsym_route r = {NULL, atomic_load_explicit(&next_dlsym, memory_order_acquire)};
    if (!r.next)
        r.next = find_next_dlsym();
    if (!name)
        return r;
    bool proc = name[0] == 'c' && name[1] == 'u' && name[2] == 'G' && name[3] == 'e' &&
                strncmp(name, "cuGetProcAddress", 16) == 0;
    if (!proc && !((name[0] == 'n' && name[1] == 'c' && name[2] == 'c' && name[3] == 'l') ||
                   (name[0] == 'p' && name[1] == 'n' && name[2] == 'c' && name[3] == 'c' && name[4] == 'l')))
        return r;
    if (in_shim(ra) || deciding || real_nccl_resolving() || tap_shim_passive())
        return r;
    if (proc) {
        deciding = 1;
        r.answer = proc_answer(r.next, handle, name, ra);
        deciding = 0;
        return r;
    }
    const struct tap_api_entry *e = tap_api_find(name);
    if (!e)
        return r;
    deciding = 1;
    r.answer = nccl_answer(r.next, handle, e, name, ra);
    if (r.answer == ABSENT) {
        r.answer = NULL;
        r.next = absent_dlsym;
    }
    deciding = 0;
    return r;
}

/* dlsym(handle, name): keep the arguments, ask, then return or jump. */
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl tap_dlsym_entry\n"
        ".type tap_dlsym_entry, @function\n"
        ".symver tap_dlsym_entry, dlsym@@GLIBC_2.34\n"
        ".globl tap_dlsym_entry_old\n"
        ".set tap_dlsym_entry_old, tap_dlsym_entry\n"
        ".symver tap_dlsym_entry_old, dlsym@GLIBC_2.2.5\n"
        "tap_dlsym_entry:\n"
        ".cfi_startproc\n"
        "  pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "  pushq %rsi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "  subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "  movq 24(%rsp), %rdx\n"
        "  call tap_dlsym_decide\n"
        "  addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "  popq %rsi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "  popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "  testq %rax, %rax\n"
        "  jz 1f\n"
        "  ret\n"
        "1:\n"
        "  jmp *%rdx\n"
        ".cfi_endproc\n"
        ".size tap_dlsym_entry, .-tap_dlsym_entry\n");
#else
__asm__(".text\n"
        ".globl tap_dlsym_entry\n"
        ".type tap_dlsym_entry, %function\n"
        ".symver tap_dlsym_entry, dlsym@@GLIBC_2.34\n"
        ".globl tap_dlsym_entry_old\n"
        ".set tap_dlsym_entry_old, tap_dlsym_entry\n"
        ".symver tap_dlsym_entry_old, dlsym@GLIBC_2.17\n"
        "tap_dlsym_entry:\n"
        ".cfi_startproc\n"
        "  stp x29, x30, [sp, #-32]!\n"
        ".cfi_def_cfa_offset 32\n"
        ".cfi_offset 29, -32\n"
        ".cfi_offset 30, -24\n"
        "  mov x29, sp\n"
        "  stp x0, x1, [sp, #16]\n"
        "  mov x2, x30\n"
        "  bl tap_dlsym_decide\n"
        "  mov x16, x1\n"
        "  mov x17, x0\n"
        "  ldp x0, x1, [sp, #16]\n"
        "  ldp x29, x30, [sp], #32\n"
        ".cfi_restore 29\n"
        ".cfi_restore 30\n"
        ".cfi_def_cfa_offset 0\n"
        "  cbz x17, 1f\n"
        "  mov x0, x17\n"
        "  ret\n"
        "1:\n"
        "  br x16\n"
        ".cfi_endproc\n"
        ".size tap_dlsym_entry, .-tap_dlsym_entry\n");
#endif

#endif
