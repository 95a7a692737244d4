/* One-sided operations' flows and waits (onesided.h): every record of a
 * put, signal or wait, sorted by its key, each run of one key summed. */
#include "onesided.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

enum kind { PUT, SIGNAL, WAIT, OTHER };

static enum kind kind_of(const char *name)
{
    return !strcmp(name, "PutSignal") ? PUT : !strcmp(name, "Signal") ? SIGNAL : !strcmp(name, "WaitSignal") ? WAIT
                                                                                                           : OTHER;
}

/* One record: its kind and key (comm, rank, peer). */
struct rec {
    uint64_t comm;
    int rank, peer;
    enum kind kind;
    uint64_t bytes;
    double us;
};

static int cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    if ((x->kind == WAIT) != (y->kind == WAIT))
        return x->kind == WAIT ? 1 : -1;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->peer > y->peer) - (x->peer < y->peer);
}

static bool same_key(const struct rec *a, const struct rec *b)
{
    return (a->kind == WAIT) == (b->kind == WAIT) && a->comm == b->comm && a->rank == b->rank && a->peer == b->peer;
}

/* Every one-sided record of the run. */
static struct rec *gather(const struct report *r, size_t *n)
{
    size_t cap = 0;
    struct rec *v = NULL;
    *n = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].nevents; j++) {
            const struct op_event *e = &r->files[i].events[j];
            enum kind k = kind_of(report_name(r, e->op));
            if (k == OTHER)
                continue;
            if (*n == cap)
                v = xrealloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
            double us = e->end_ns > e->start_ns ? (double)(e->end_ns - e->start_ns) / 1e3 : 0;
            v[(*n)++] = (struct rec){ e->comm, e->rank, e->peer, k, e->bytes, us };
        }
    return v;
}

static void add_run(struct onesided *o, const struct rec *v, size_t from, size_t to, size_t *fcap, size_t *wcap)
{
    if (v[from].kind == WAIT) {
        if (o->nwaits == *wcap)
            o->waits = xrealloc(o->waits, (*wcap = *wcap ? 2 * *wcap : 16) * sizeof *o->waits);
        struct onesided_wait *w = &o->waits[o->nwaits++];
        *w = (struct onesided_wait){ v[from].comm, v[from].rank, v[from].peer, 0, 0, 0 };
        for (size_t i = from; i < to; i++) {
            w->waits++;
            w->total_us += v[i].us;
            w->max_us = v[i].us > w->max_us ? v[i].us : w->max_us;
        }
        return;
    }
    if (o->nflows == *fcap)
        o->flows = xrealloc(o->flows, (*fcap = *fcap ? 2 * *fcap : 16) * sizeof *o->flows);
    struct onesided_flow *f = &o->flows[o->nflows++];
    *f = (struct onesided_flow){ v[from].comm, v[from].rank, v[from].peer, 0, 0, 0 };
    for (size_t i = from; i < to; i++) {
        f->puts += v[i].kind == PUT;
        f->bytes += v[i].kind == PUT ? v[i].bytes : 0;
        f->signals += v[i].kind == SIGNAL;
    }
}

void onesided_analyze(const struct report *r, struct onesided *out)
{
    memset(out, 0, sizeof *out);
    size_t n, fcap = 0, wcap = 0;
    struct rec *v = gather(r, &n);
    if (n)
        qsort(v, n, sizeof *v, cmp_rec);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && same_key(&v[i], &v[j]); j++)
            ;
        add_run(out, v, i, j, &fcap, &wcap);
    }
    free(v);
}

void onesided_free(struct onesided *o)
{
    free(o->flows);
    free(o->waits);
    memset(o, 0, sizeof *o);
}
