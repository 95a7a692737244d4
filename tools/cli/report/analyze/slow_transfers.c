/* Slow transfers: communicators (collectives) and pairs (send/receive)
 * whose transfer busbw is well below the job's median for the same op and
 * size. Transfer time starts when the last rank arrived, so a straggler's
 * lateness does not count against the link. */
#include "crossrank.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* One busbw sample with what it is grouped by. */
struct sample {
    uint64_t bytes, comm, seq;
    uint8_t op;
    int src, dst;    /* p2p; -1 for collectives */
    double gbs;
};

static int cmp_key(const void *a, const void *b)
{
    const struct sample *x = a, *y = b;
    if (x->op != y->op)
        return x->op < y->op ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    return 0;
}

static int cmp_group(const void *a, const void *b)
{
    int c = cmp_key(a, b);
    if (c)
        return c;
    const struct sample *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

static bool same_group(const struct sample *a, const struct sample *b)
{
    return cmp_group(a, b) == 0;
}

static int cmp_slow(const void *a, const void *b)
{
    const struct xr_slow *x = a, *y = b;
    double rx = x->busbw_gbs / x->median_busbw_gbs, ry = y->busbw_gbs / y->median_busbw_gbs;
    return (rx > ry) - (rx < ry);
}

/* Samples [0, n) sorted by group: lists the groups well below the median of
 * their (op, bytes). */
static void flag(struct crossrank *x, struct sample *v, size_t n, bool p2p,
                 const struct xr_instance *(*inst)(const struct crossrank *, uint64_t, uint64_t))
{
    size_t cap = x->nslow;
    double *g = xmalloc((n ? n : 1) * sizeof *g);
    for (size_t k = 0; k < n;) {
        size_t kend = k;
        while (kend < n && cmp_key(&v[kend], &v[k]) == 0)
            kend++;
        for (size_t i = k; i < kend; i++)
            g[i - k] = v[i].gbs;
        double median = xr_median(g, kend - k);
        for (size_t i = k; i < kend;) {
            size_t j = i;
            while (j < kend && same_group(&v[j], &v[i]))
                j++;
            struct xr_slow s = { .comm = v[i].comm, .op = v[i].op, .bytes = v[i].bytes, .p2p = p2p,
                                 .src = v[i].src, .dst = v[i].dst, .instances = j - i,
                                 .median_busbw_gbs = median };
            for (size_t t = i; t < j; t++) {
                g[t - i] = v[t].gbs;
                if (v[t].gbs < XR_SLOW_FRACTION * median)
                    s.slow++;
                xr_keep_worst(s.worst_seq, s.worst_gbs, &s.nworst, v[t].seq, v[t].gbs, false);
            }
            s.busbw_gbs = xr_median(g, j - i);
            if (!p2p) {
                const struct xr_instance *in = inst(x, s.comm, v[i].seq);
                s.nranks = in ? (in->nranks ? in->nranks : (int)in->n) : 0;
            }
            if (median > 0 && s.busbw_gbs < XR_SLOW_FRACTION * median) {
                if (x->nslow == cap)
                    x->slow = xrealloc(x->slow, (cap = cap ? 2 * cap : 8) * sizeof *x->slow);
                x->slow[x->nslow++] = s;
            }
            i = j;
        }
        k = kend;
    }
    free(g);
}

void xr_find_slow(const struct report *r, struct crossrank *x)
{
    /* Collectives: complete, not grouped (a group's interval is all of its
     * ops'), and timed. */
    struct sample *v = xmalloc((x->ninstances + x->npairs + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < x->ninstances; i++) {
        const struct xr_instance *in = &x->instances[i];
        if (in->grouped || in->n < 2 || (in->nranks && in->n != (size_t)in->nranks) || in->busbw_gbs <= 0)
            continue;
        v[n++] = (struct sample){ in->bytes, in->comm, in->seq, in->op, -1, -1, in->busbw_gbs };
    }
    qsort(v, n, sizeof *v, cmp_group);
    flag(x, v, n, false, xr_find);
    n = 0;
    for (size_t i = 0; i < x->npairs; i++) {
        const struct xr_pair *p = &x->pairs[i];
        if (p->busbw_gbs > 0)
            v[n++] = (struct sample){ p->bytes, p->comm, p->order, xr_event(r, p->send)->op,
                                      p->src, p->dst, p->busbw_gbs };
    }
    qsort(v, n, sizeof *v, cmp_group);
    flag(x, v, n, true, NULL);
    free(v);
    if (x->nslow)
        qsort(x->slow, x->nslow, sizeof *x->slow, cmp_slow);
}
