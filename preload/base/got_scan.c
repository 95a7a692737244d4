#include "base/got_scan.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if __ELF_NATIVE_CLASS == 64
#define R_SYM(info) ELF64_R_SYM(info)
#else
#define R_SYM(info) ELF32_R_SYM(info)
#endif

struct got_query {
    const void *lib_base, *self_base;
    bool (*wanted)(const char *name);
    const char *found;
};

/* What one object's dynamic section says of its symbols and relocations. */
struct dyn_tables {
    const ElfW(Sym) *symtab;
    const char *strtab;
    const ElfW(Rela) *rela, *jmprel;
    size_t relasz, jmprelsz;
    bool plt_is_rela;
};

/* glibc rewrites these entries of a writable dynamic section to run-time
 * addresses; a read-only one (the vDSO's) keeps file offsets. */
static uintptr_t at(ElfW(Addr) base, ElfW(Addr) ptr)
{
    return ptr < base ? base + ptr : ptr;
}

static bool read_dynamic(const struct dl_phdr_info *info, struct dyn_tables *t)
{
    memset(t, 0, sizeof *t);
    t->plt_is_rela = true;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn)
        return false;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        ElfW(Addr) b = info->dlpi_addr;
        switch (dyn->d_tag) {
        case DT_SYMTAB: t->symtab = (const ElfW(Sym) *)at(b, dyn->d_un.d_ptr); break;
        case DT_STRTAB: t->strtab = (const char *)at(b, dyn->d_un.d_ptr); break;
        case DT_RELA: t->rela = (const ElfW(Rela) *)at(b, dyn->d_un.d_ptr); break;
        case DT_RELASZ: t->relasz = dyn->d_un.d_val; break;
        case DT_JMPREL: t->jmprel = (const ElfW(Rela) *)at(b, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: t->jmprelsz = dyn->d_un.d_val; break;
        case DT_PLTREL: t->plt_is_rela = dyn->d_un.d_val == DT_RELA; break;
        default: break;
        }
    }
    return t->symtab && t->strtab;
}

/* Is one of these relocations a slot for a wanted import bound inside the
 * library? */
static bool slots_bound_into(const struct dl_phdr_info *info, const struct dyn_tables *t,
                             const ElfW(Rela) *r, size_t bytes, const struct got_query *q)
{
    for (size_t i = 0; r && i < bytes / sizeof *r; i++) {
        size_t sym = R_SYM(r[i].r_info);
        if (sym == 0 || t->symtab[sym].st_shndx != SHN_UNDEF ||
            !q->wanted(t->strtab + t->symtab[sym].st_name))
            continue;
        void *slot = *(void *const *)(info->dlpi_addr + r[i].r_offset);
        Dl_info where;
        if (slot && dladdr(slot, &where) && where.dli_fbase == q->lib_base)
            return true;
    }
    return false;
}

/* Where the object is mapped, as dladdr says it (dli_fbase): found from
 * an address in its first loadable segment. */
static const void *object_base(const struct dl_phdr_info *info)
{
    Dl_info d;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD)
            return dladdr((const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr), &d) ? d.dli_fbase : NULL;
    return NULL;
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct got_query *q = arg;
    const void *base = object_base(info);
    if (!base || base == q->lib_base || base == q->self_base)
        return 0;
    struct dyn_tables t;
    if (!read_dynamic(info, &t))
        return 0;
    if (slots_bound_into(info, &t, t.rela, t.relasz, q) ||
        (t.plt_is_rela && slots_bound_into(info, &t, t.jmprel, t.jmprelsz, q))) {
        q->found = info->dlpi_name;
        return 1;
    }
    return 0;
}

const char *tap_got_bound_into(const void *lib_base, const void *self_base, bool (*wanted)(const char *name))
{
    struct got_query q = { lib_base, self_base, wanted, NULL };
    dl_iterate_phdr(scan_object, &q);
    return q.found;
}
