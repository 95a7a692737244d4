/* Entry points summed over the processes (entry_points.h). */
#include "entry_points.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const struct entry_summary *)a)->name, ((const struct entry_summary *)b)->name);
}

/* Names are interned: one pointer per name. */
static struct entry_summary *find_or_add(struct entry_points *e, size_t *cap, const char *name)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].name == name)
            return &e->v[i];
    if (e->n == *cap)
        e->v = xrealloc(e->v, (*cap = *cap ? 2 * *cap : 16) * sizeof *e->v);
    e->v[e->n] = (struct entry_summary){ .name = name };
    return &e->v[e->n++];
}

void entry_points_analyze(const struct report *r, struct entry_points *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t k = 0; k < r->files[i].nentry_points; k++) {
            const struct entry_count *c = &r->files[i].entry_points[k];
            struct entry_summary *s = find_or_add(out, &cap, c->name);
            s->calls += c->calls;
            s->failed += c->failed;
            s->processes++;
        }
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, cmp_name);
}

void entry_points_free(struct entry_points *e)
{
    free(e->v);
    memset(e, 0, sizeof *e);
}
