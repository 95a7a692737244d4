#include "op_sites.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Names are interned (model.h): equal names are equal pointers, which the
 * key compares as such. */
struct op_site_key {
    uint64_t comm, size_class;
    const char *op, *dtype;
    const struct callsite *site;
};

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return (x > y) - (x < y);
}

static int cmp_key(const void *pa, const void *pb)
{
    const struct op_site_key *a = pa, *b = pb;
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (a->size_class != b->size_class)
        return a->size_class < b->size_class ? -1 : 1;
    int c = cmp_ptr(a->op, b->op);
    return c ? c : cmp_ptr(a->dtype, b->dtype);
}

void op_sites_of_file(const struct rank_file *f, struct op_sites *out)
{
    size_t n = 0;
    for (size_t i = 0; i < f->nsites; i++)
        n += f->sites[i].nrows;
    out->v = xcalloc(n ? n : 1, sizeof *out->v);
    out->n = 0;
    for (size_t i = 0; i < f->nsites; i++) {
        const struct callsite *s = &f->sites[i];
        for (size_t k = 0; k < s->nrows; k++) {
            const struct site_row *row = &s->rows[k];
            if (!row->calls)
                continue;  /* listed, with no call of that row yet */
            /* Site 0 (the shim's table was full) has no frames: not known. */
            out->v[out->n++] = (struct op_site_key){ strtoull(row->comm, NULL, 16), row->size_class, row->op,
                                                     row->dtype, s->nframes ? s : NULL };
        }
    }
    qsort(out->v, out->n, sizeof *out->v, cmp_key);
    /* A row of two sites or more: keep one entry, with no site. */
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (kept && cmp_key(&out->v[kept - 1], &out->v[i]) == 0) {
            if (out->v[kept - 1].site != out->v[i].site)
                out->v[kept - 1].site = NULL;
            continue;
        }
        out->v[kept++] = out->v[i];
    }
    out->n = kept;
}

const struct callsite *op_site(const struct op_sites *s, const struct report *r, const struct op_event *e)
{
    /* The statistics row's size class, as the shim writes it: the power of
     * two at or below the size (0 for 0 bytes). */
    uint64_t size_class = e->bytes ? 1ull << (63 - __builtin_clzll(e->bytes)) : 0;
    struct op_site_key key = { e->comm, size_class, report_name(r, e->op), report_name(r, e->dtype), NULL };
    const struct op_site_key *k = bsearch(&key, s->v, s->n, sizeof *s->v, cmp_key);
    return k ? k->site : NULL;
}

void op_sites_free(struct op_sites *s)
{
    free(s->v);
    s->v = NULL;
    s->n = 0;
}
