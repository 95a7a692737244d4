#include "writers/load_map.h"

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct collect {
    struct tap_module *m;
    unsigned n, cap;
};

/* The GNU build id note of a loaded object, read from its mapped notes. */
static void build_id(const struct dl_phdr_info *info, char *out, size_t len)
{
    out[0] = '\0';
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *nh;
            const unsigned char *desc = (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                2 * (size_t)nh->n_descsz < len) {
                for (unsigned k = 0; k < nh->n_descsz; k++)
                    snprintf(out + 2 * k, 3, "%02x", desc[k]);
                return;
            }
            p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
}

static int add(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct collect *c = data;
    if (c->n == c->cap) {
        unsigned cap = c->cap ? 2 * c->cap : 64;
        struct tap_module *m = realloc(c->m, cap * sizeof *m);
        if (!m)
            return 1;
        c->m = m;
        c->cap = cap;
    }
    struct tap_module *m = &c->m[c->n];
    m->start = UINTPTR_MAX;
    m->end = 0;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        m->start = s < m->start ? s : m->start;
        m->end = s + ph->p_memsz > m->end ? s + ph->p_memsz : m->end;
    }
    if (m->start >= m->end)
        return 0;
    m->base = info->dlpi_addr;
    m->used = false;
    if (info->dlpi_name && info->dlpi_name[0]) {
        snprintf(m->path, sizeof m->path, "%s", info->dlpi_name);
    } else { /* the main program */
        ssize_t len = readlink("/proc/self/exe", m->path, sizeof m->path - 1);
        m->path[len > 0 ? len : 0] = '\0';
    }
    build_id(info, m->build_id, sizeof m->build_id);
    c->n++;
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct tap_module *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

struct tap_module *tap_load_map(unsigned *n)
{
    struct collect c = {0};
    dl_iterate_phdr(add, &c);
    if (c.n)
        qsort(c.m, c.n, sizeof *c.m, by_start);
    *n = c.n;
    return c.m;
}

struct tap_module *tap_load_map_find(struct tap_module *m, unsigned n, uintptr_t pc)
{
    unsigned lo = 0, hi = n;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (pc < m[mid].start)
            hi = mid;
        else if (pc >= m[mid].end)
            lo = mid + 1;
        else
            return &m[mid];
    }
    return NULL;
}
