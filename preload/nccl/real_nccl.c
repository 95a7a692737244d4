#include "nccl/real_nccl.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "nccl/nccl_ops.h"
#include "nccl/shim_copy.h"

/* Resolution takes no lock: it calls into the dynamic loader (dlopen,
 * dlsym, dl_iterate_phdr), which takes the loader's lock, and may itself
 * be reached from inside that lock (a library constructor looking an
 * NCCL name up through dlsym): a lock of nccltap's held around the loader
 * would deadlock against it. Each thread that finds no answer published
 * resolves into a copy of its own; the first to finish publishes its
 * copy, the others take it. A copy is published at most twice: the first
 * resolution, and once more when a later one finds NCCL where the first
 * did not (it was loaded since, or only the caller's scope has it). */
static struct real_nccl resolved[2];
struct real_nccl *_Atomic tap_real_nccl_current;
enum { FREE, WRITING, DONE };
static _Atomic int slot_state[2];
/* This thread is looking NCCL up: its dlsym calls, which may come back
 * through another tool's dlsym to nccltap's, are its own and must not be
 * answered (entry/dlsym_hook.c). */
static __thread bool resolving __attribute__((tls_model("initial-exec")));

bool real_nccl_resolving(void) { return resolving; }

bool real_nccl_is_library(const char *path)
{
    const char *slash = strrchr(path, '/');
    return strncmp(slash ? slash + 1 : path, "libnccl.so", 10) == 0;
}

static int find_nccl(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    if (!real_nccl_is_library(info->dlpi_name))
        return 0;
    *(void **)found = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    return *(void **)found != NULL;
}

/* The NCCL to call. Usually the next definition after the shim in the
 * global scope (RTLD_NEXT). An application whose NCCL comes with a library
 * it dlopen()s privately (Python extension modules, PyTorch among them) has
 * it outside that scope, although its calls still reach the shim: then the
 * loaded libnccl.so is found by name among the process's objects. */

/* nccltap's marker (shim_copy.h): a library that has it is nccltap, at
 * whatever path, a copy included. Calling it as the NCCL would call the
 * wrappers forever. */
#define TAP_MARKER TAP_SHIM_MARKER

/* Whether the ELF file at `path` names the marker in its dynamic string
 * table: nccltap told before it is loaded, so that no constructor of a
 * second copy of it runs in the process. False where the file cannot be
 * read as this machine's ELF; the loaded library is checked then. */
static bool file_is_nccltap(const char *path)
{
    enum { MAX_PHDRS = 64, MAX_DYN = 65536, MAX_STRTAB = 64 << 20 };
    static const char want[] = "\0" TAP_MARKER; /* and the '\0' ending it */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool found = false;
    ElfW(Dyn) *dyn = NULL;
    char *strtab = NULL;
    ElfW(Ehdr) eh;
    ElfW(Phdr) ph[MAX_PHDRS];
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
        eh.e_phentsize != sizeof ph[0] || eh.e_phnum == 0 || eh.e_phnum > MAX_PHDRS)
        goto out;
    size_t ph_len = eh.e_phnum * sizeof ph[0];
    if (pread(fd, ph, ph_len, (off_t)eh.e_phoff) != (ssize_t)ph_len)
        goto out;
    const ElfW(Phdr) *dp = NULL;
    for (int i = 0; i < eh.e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC)
            dp = &ph[i];
    if (!dp || dp->p_filesz == 0 || dp->p_filesz > MAX_DYN || !(dyn = malloc(dp->p_filesz)) ||
        pread(fd, dyn, dp->p_filesz, (off_t)dp->p_offset) != (ssize_t)dp->p_filesz)
        goto out;
    ElfW(Addr) str_addr = 0;
    size_t str_len = 0;
    for (size_t i = 0; i < dp->p_filesz / sizeof *dyn && dyn[i].d_tag != DT_NULL; i++) {
        if (dyn[i].d_tag == DT_STRTAB)
            str_addr = dyn[i].d_un.d_ptr;
        else if (dyn[i].d_tag == DT_STRSZ)
            str_len = dyn[i].d_un.d_val;
    }
    if (!str_len || str_len > MAX_STRTAB)
        goto out;
    /* The table's address in the file: the loadable segment holding it. */
    for (int i = 0; i < eh.e_phnum && !strtab; i++) {
        if (ph[i].p_type != PT_LOAD || str_addr < ph[i].p_vaddr || str_addr - ph[i].p_vaddr > ph[i].p_filesz ||
            str_len > ph[i].p_filesz - (str_addr - ph[i].p_vaddr))
            continue;
        off_t at = (off_t)(ph[i].p_offset + (str_addr - ph[i].p_vaddr));
        if (!(strtab = malloc(str_len)) || pread(fd, strtab, str_len, at) != (ssize_t)str_len)
            goto out;
    }
    found = strtab && memmem(strtab, str_len, want, sizeof want) != NULL;
out:
    free(strtab);
    free(dyn);
    close(fd);
    return found;
}

/* Why the library NCCLTAP_NCCL_LIBRARY names cannot be the NCCL to call,
 * or NULL when it can. */
static const char *not_nccl(void *lib)
{
    if (dlsym(lib, TAP_MARKER))
        return "it is nccltap itself";
    if (!dlsym(lib, "ncclCommInitRank") || !dlsym(lib, "ncclGetVersion"))
        return "it has no NCCL (no ncclGetVersion or ncclCommInitRank)";
    return NULL;
}

static atomic_flag library_said = ATOMIC_FLAG_INIT;
static _Atomic bool library_refused;

/* `h`, a handle, when its scope defines NCCL that is not nccltap: NULL
 * otherwise (the caller's dlopen reference is then dropped). */
static void *nccl_in(void *h)
{
    if (h && dlsym(h, "ncclGetVersion") && dlsym(h, "ncclCommInitRank") && !dlsym(h, TAP_MARKER)) {
        Dl_info theirs;
        if (dladdr(dlsym(h, "ncclGetVersion"), &theirs) && theirs.dli_fbase != tap_shim_self())
            return h;
    }
    if (h)
        dlclose(h);
    return NULL;
}

/* The NCCL in the scope of the object that holds `addr` (the code that
 * called a wrapper or looked a name up): the object and what it loaded.
 * A library loaded with dlopen(RTLD_LOCAL) that links an NCCL of another
 * file name (a wheel's renamed copy, RCCL) has it there and nowhere else
 * nccltap looks. NULL for the program itself (the global scope, already
 * searched) or when that scope has no NCCL. */
static void *nccl_of_caller(const void *addr)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!addr || !dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm || !lm->l_name || !lm->l_name[0])
        return NULL;
    return nccl_in(dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD));
}

static void *nccl_library(const void *caller)
{
    if (tap_config.nccl_library && !atomic_load(&library_refused)) {
        const char *path = tap_config.nccl_library, *why = NULL;
        void *lib = NULL;
        /* A name without '/' is looked for as dlopen() does: only the
         * library it loads can be checked. */
        if (strchr(path, '/') && file_is_nccltap(path))
            why = "it is nccltap itself";
        else if (!(lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL)))
            why = dlerror();
        else if ((why = not_nccl(lib)) != NULL && dlsym(lib, TAP_MARKER))
            dlclose(lib); /* nccltap: its constructor only read the configuration */
        if (!why)
            return lib;
        atomic_store(&library_refused, true);
        TAP_LOG_ONCE(library_said, "NCCLTAP_NCCL_LIBRARY=%s cannot be used (%s); using the NCCL the "
                     "application links", path, why);
    }
    if (dlsym(RTLD_NEXT, "ncclGetVersion"))
        return RTLD_NEXT;
    void *lib = NULL;
    dl_iterate_phdr(find_nccl, &lib);
    return lib ? lib : nccl_of_caller(caller);
}

/* The functions that RTLD_NEXT found in a later copy of nccltap (passive,
 * shim_copy.h) are taken from what follows the copies instead: another
 * tool's wrapper preloaded after them, else the NCCL, the library that
 * defines ncclGetVersion (nccltap wraps no query). The program's calls
 * then go where they would go without the copies. */
static void call_past_copies(struct real_nccl *real)
{
    const void *nccl = (const void *)(uintptr_t)real->ncclGetVersion;
#define NCCLTAP_REAL_PAST(name, params, args, kind)                                         \
    if (real->name && tap_shim_copy_at((void *)(uintptr_t)real->name))                      \
        *(void **)&real->name = tap_shim_next_past_copies((void *)(uintptr_t)real->name, nccl, #name); \
    if (real->p##name && tap_shim_copy_at((void *)(uintptr_t)real->p##name))                \
        *(void **)&real->p##name =                                                          \
            tap_shim_next_past_copies((void *)(uintptr_t)real->p##name, nccl, "p" #name);
    NCCLTAP_NCCL_API(NCCLTAP_REAL_PAST)
#undef NCCLTAP_REAL_PAST
}

/* Fills `real` from the NCCL found; false when none is. */
static bool resolve_into(struct real_nccl *real, const void *caller)
{
    memset(real, 0, sizeof *real);
    resolving = true;
    void *lib = nccl_library(caller);
    if (lib) {
#define NCCLTAP_REAL_RESOLVE(name, params, args, kind) \
    *(void **)&real->name = dlsym(lib, #name);         \
    *(void **)&real->p##name = dlsym(lib, "p" #name);
        NCCLTAP_NCCL_API(NCCLTAP_REAL_RESOLVE)
#undef NCCLTAP_REAL_RESOLVE
#define NCCLTAP_REAL_QUERY_RESOLVE(ret, name, params, args) *(void **)&real->name = dlsym(lib, #name);
        NCCLTAP_NCCL_QUERIES(NCCLTAP_REAL_QUERY_RESOLVE)
#undef NCCLTAP_REAL_QUERY_RESOLVE
        real->simulated = dlsym(lib, "ncclsim_marker") != NULL;
        if (lib == RTLD_NEXT)
            call_past_copies(real);
    }
    real->passive = tap_shim_passive();
    resolving = false;
    int v = 0;
    if (real->ncclGetVersion && real->ncclGetVersion(&v) == ncclSuccess)
        real->version = v;
    return lib != NULL;
}

/* Publishes `mine` in slot `i` if no thread has, and returns what is
 * published there (another thread's copy may be being written: its
 * writer calls nothing meanwhile, so the wait is a copy's length). */
static const struct real_nccl *publish(int i, const struct real_nccl *mine)
{
    int expected = FREE;
    if (atomic_compare_exchange_strong(&slot_state[i], &expected, WRITING)) {
        resolved[i] = *mine;
        atomic_store_explicit(&tap_real_nccl_current, &resolved[i], memory_order_release);
        atomic_store_explicit(&slot_state[i], DONE, memory_order_release);
    }
    while (atomic_load_explicit(&slot_state[i], memory_order_acquire) != DONE)
        ;
    return &resolved[i];
}

const struct real_nccl *real_nccl_resolve(const void *caller)
{
    tap_config_ensure(); /* NCCLTAP_NCCL_LIBRARY, also before the constructor ran */
    struct real_nccl mine;
    resolve_into(&mine, caller);
    return publish(0, &mine);
}

const struct real_nccl *real_nccl_retry(const void *caller)
{
    const struct real_nccl *now = real_nccl(caller);
    if (now->ncclGetVersion)
        return now; /* NCCL is known: the function is missing from it */
    struct real_nccl mine;
    if (!resolve_into(&mine, caller))
        return now;
    return publish(1, &mine);
}

/* Distinct functions are few; a small table of names said keeps "once". */
#define MISSING_MAX 128
static const char *_Atomic missing_said[MISSING_MAX];

ncclResult_t real_nccl_missing(const char *name)
{
    for (int i = 0; i < MISSING_MAX; i++) {
        const char *seen = atomic_load(&missing_said[i]);
        if (seen == name)
            return ncclInvalidUsage;
        if (!seen) {
            const char *expected = NULL;
            if (atomic_compare_exchange_strong(&missing_said[i], &expected, name)) {
                char v[32];
                tap_log("%s is not in the NCCL library in use (version %s); returning ncclInvalidUsage",
                        name, tap_nccl_version_str(real_nccl(NULL)->version, v, sizeof v));
                return ncclInvalidUsage;
            }
            if (expected == name)
                return ncclInvalidUsage;
        }
    }
    return ncclInvalidUsage;
}
