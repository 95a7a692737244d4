/* The timeline strip (strip.h). */
#include "strip.h"
#include "crossrank_base.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The instances [*from, *to) of the window around finding f, and the one
 * it is about (*at: its index, or *to for a hang's stuck op, which no rank
 * completed). False when f has none. */
static bool window_of(const struct crossrank *x, const struct finding *f, size_t *from, size_t *to, size_t *at)
{
    if (f->kind != FINDING_STRAGGLER && f->kind != FINDING_SLOW_TRANSFER && f->kind != FINDING_HANG &&
        !(f->kind == FINDING_OS && f->comm))
        return false;
    const struct xr_instance *in = NULL;
    if (f->kind == FINDING_HANG) {
        /* The last instance of the communicator before the stuck op. */
        for (size_t i = 0; i < x->ninstances; i++)
            if (x->instances[i].comm == f->comm && x->instances[i].seq < f->seq)
                in = &x->instances[i];
    } else {
        in = xr_find(x, f->comm, f->seq, f->replay);
    }
    if (!in)
        return false;
    size_t i = (size_t)(in - x->instances), lo = i, hi = i + 1;
    size_t before = f->kind == FINDING_HANG ? 2 * STRIP_SPAN : STRIP_SPAN;
    size_t after = f->kind == FINDING_HANG ? 0 : STRIP_SPAN;
    while (lo > 0 && i - lo < before && x->instances[lo - 1].comm == f->comm)
        lo--;
    while (hi < x->ninstances && hi - i - 1 < after && x->instances[hi].comm == f->comm)
        hi++;
    *from = lo;
    *to = hi;
    *at = f->kind == FINDING_HANG ? hi : i;
    return true;
}

static bool has_rank(const int *v, size_t n, int rank)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == rank)
            return true;
    return false;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The rows: the culprit, then the lowest ranks of the window's instances,
 * STRIP_MAX_RANKS at most; ranks_total, every rank seen. */
static void choose_ranks(const struct report *r, size_t from, size_t to, int culprit, struct strip *s)
{
    const struct crossrank *x = r->cross;
    int *seen = NULL;
    size_t nseen = 0;
    for (size_t i = from; i < to; i++) {
        const struct xr_instance *in = &x->instances[i];
        for (size_t k = 0; k < in->n; k++) {
            int rank = xr_event(r, x->members[in->first + k])->rank;
            if (!has_rank(seen, nseen, rank)) {
                seen = xrealloc(seen, (nseen + 1) * sizeof *seen);
                seen[nseen++] = rank;
            }
        }
    }
    qsort(seen, nseen, sizeof *seen, cmp_int);
    s->ranks_total = nseen;
    s->ranks = xcalloc(STRIP_MAX_RANKS, sizeof *s->ranks);
    if (culprit >= 0 && has_rank(seen, nseen, culprit))
        s->ranks[s->nranks++] = culprit;
    for (size_t i = 0; i < nseen && s->nranks < STRIP_MAX_RANKS; i++)
        if (seen[i] != culprit)
            s->ranks[s->nranks++] = seen[i];
    qsort(s->ranks, s->nranks, sizeof *s->ranks, cmp_int);
    free(seen);
}

static int row_of(const struct strip *s, int rank)
{
    for (size_t i = 0; i < s->nranks; i++)
        if (s->ranks[i] == rank)
            return (int)i;
    return -1;
}

/* The window's origin: the earliest start of instances [from, to). */
static int64_t window_origin(const struct crossrank *x, size_t from, size_t to)
{
    int64_t origin = x->instances[from].earliest_start_ns;
    for (size_t i = from; i < to; i++)
        if (x->instances[i].earliest_start_ns < origin)
            origin = x->instances[i].earliest_start_ns;
    return origin;
}

/* The ops of the rows in instances [from, to), from `origin`; each row's
 * process in files[row] (NULL: none seen). */
static void collect_ops(const struct report *r, size_t from, size_t to, int64_t origin, struct strip *s,
                        const struct rank_file **files)
{
    const struct crossrank *x = r->cross;
    for (size_t i = from; i < to; i++) {
        const struct xr_instance *in = &x->instances[i];
        for (size_t k = 0; k < in->n; k++) {
            struct xr_member m = x->members[in->first + k];
            int row = row_of(s, xr_event(r, m)->rank);
            if (row < 0)
                continue;
            files[row] = &r->files[m.file];
            s->ops = xrealloc(s->ops, (s->nops + 1) * sizeof *s->ops);
            struct strip_op *o = &s->ops[s->nops++];
            *o = (struct strip_op){ row, in->seq, xr_start(r, m) - origin, xr_end(r, m) - origin,
                                    in->n > 1 && xr_event(r, m)->rank == in->last_rank };
            if (o->end_ns > s->span_ns)
                s->span_ns = o->end_ns;
        }
    }
}

/* The preempted times of each row's process's followed threads inside
 * the window [origin, origin + span), in the reference clock. */
static void collect_off(const struct os_interference *os, const struct rank_file **files, int64_t origin,
                        struct strip *s)
{
    for (size_t row = 0; row < s->nranks; row++) {
        for (size_t k = 0; files[row] && k < os->nthreads; k++) {
            const struct os_thread *t = &os->threads[k];
            if (t->file != files[row])
                continue;
            for (size_t j = 0; j < t->noff; j++) {
                const struct os_interval *o = &t->off[j];
                int64_t a = (int64_t)o->start_ns - files[row]->clock_offset_ns - origin;
                int64_t b = (int64_t)o->end_ns - files[row]->clock_offset_ns - origin;
                if (!o->preempted || b <= 0 || a >= s->span_ns)
                    continue;
                s->off = xrealloc(s->off, (s->noff + 1) * sizeof *s->off);
                s->off[s->noff++] = (struct strip_off){ (int)row, a < 0 ? 0 : a, b > s->span_ns ? s->span_ns : b,
                                                        t->tid };
            }
        }
    }
}

void report_strip(const struct report *r, const struct findings *f, const struct os_interference *os,
                  struct strip *out)
{
    memset(out, 0, sizeof *out);
    const struct crossrank *x = r->cross;
    if (!x)
        return;
    for (size_t i = 0; i < f->n; i++) {
        size_t from, to, at;
        if (!window_of(x, &f->v[i], &from, &to, &at))
            continue;
        const struct finding *v = &f->v[i];
        out->around = v;
        out->comm = v->comm;
        out->seq = v->seq;
        out->op = x->instances[at < to ? at : to - 1].op;
        choose_ranks(r, from, to, v->rank, out);
        const struct rank_file **files = xcalloc(out->nranks ? out->nranks : 1, sizeof *files);
        int64_t origin = window_origin(x, from, to);
        collect_ops(r, from, to, origin, out, files);
        if (os)
            collect_off(os, files, origin, out);
        free(files);
        return;
    }
}

void strip_free(struct strip *s)
{
    free(s->ranks);
    free(s->ops);
    free(s->off);
    memset(s, 0, sizeof *s);
}
