/* Slow transfers: communicators (collectives) and pairs (send/receive)
 * whose transfer busbw is well below the job's median for the same op and
 * size, or below what the user expects (NCCLTAP_EXPECT_BUSBW_GBS): a job
 * with one communicator has nothing else to compare its collectives with,
 * since a slow link slows every collective on it, on all its ranks alike.
 * Transfer time starts when the last rank arrived, so a straggler's
 * lateness does not count against the link. */
#include "slow_transfers.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One busbw sample with what it is grouped by. */
struct sample {
    uint64_t bytes, comm, seq, replay;  /* p2p: seq is the pair's order, replay 0 */
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

/* Its busbw over what it is compared with. */
static double ratio(const struct xr_slow *s)
{
    double ref = s->reference == XR_REF_JOB ? s->median_busbw_gbs : s->expected_gbs;
    return ref > 0 ? s->busbw_gbs / ref : 1;
}

static int cmp_slow(const void *a, const void *b)
{
    double rx = ratio(a), ry = ratio(b);
    return (rx > ry) - (rx < ry);
}

/* Notes (op, bytes) of `count` instances and median `gbs` that nothing in
 * the job or the user's expectations compares with. */
static void note_uncompared(struct crossrank *x, uint8_t op, uint64_t bytes, size_t count, double gbs,
                            size_t *best)
{
    x->uncompared++;
    if (count > *best) {
        *best = count;
        x->uncompared_op = op;
        x->uncompared_bytes = bytes;
        x->uncompared_gbs = gbs;
    }
}

/* Samples [0, n) sorted by group: lists the groups well below the median of
 * their (op, bytes), or below the busbw expected for them. */
static void flag(const struct report *r, struct crossrank *x, struct sample *v, size_t n, bool p2p,
                 size_t *best)
{
    size_t cap = x->nslow;
    double *g = xmalloc((n ? n : 1) * sizeof *g);
    for (size_t k = 0; k < n;) {
        size_t kend = k, groups = 0;
        while (kend < n && cmp_key(&v[kend], &v[k]) == 0) {
            groups += kend == k || !same_group(&v[kend], &v[kend - 1]);
            kend++;
        }
        for (size_t i = k; i < kend; i++)
            g[i - k] = v[i].gbs;
        double median = xr_median(g, kend - k);
        double expected = xr_expected_gbs(x, report_name(r, v[k].op), v[k].bytes);
        if (groups == 1 && expected <= 0)
            note_uncompared(x, v[k].op, v[k].bytes, kend - k, median, best);
        for (size_t i = k; i < kend;) {
            size_t j = i;
            while (j < kend && same_group(&v[j], &v[i]))
                j++;
            struct xr_slow s = { .comm = v[i].comm, .op = v[i].op, .bytes = v[i].bytes, .p2p = p2p,
                                 .src = v[i].src, .dst = v[i].dst, .instances = j - i,
                                 .median_busbw_gbs = median, .expected_gbs = expected };
            for (size_t t = i; t < j; t++)
                g[t - i] = v[t].gbs;
            s.busbw_gbs = xr_median(g, j - i);
            bool below_job = median > 0 && s.busbw_gbs < XR_SLOW_FRACTION * median;
            bool below_expected = expected > 0 && s.busbw_gbs < XR_SLOW_FRACTION * expected;
            s.reference = below_job || !below_expected ? XR_REF_JOB : XR_REF_EXPECTED;
            double ref = s.reference == XR_REF_JOB ? median : expected;
            for (size_t t = i; t < j; t++) {
                if (v[t].gbs < XR_SLOW_FRACTION * ref)
                    s.slow++;
                xr_keep_worst(s.worst_seq, s.worst_replay, s.worst_gbs, &s.nworst, v[t].seq, v[t].replay,
                              v[t].gbs, false);
            }
            if (!p2p) {
                const struct xr_instance *in = xr_find(x, s.comm, v[i].seq, v[i].replay);
                s.nranks = in ? (in->nranks ? in->nranks : (int)in->n) : 0;
            }
            if (below_job || below_expected) {
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

/* Per communicator with two or more slow pairs: the ranks in every one of
 * them (pairs 0->1 and 1->2: rank 1), where the link they share is. */
static void find_suspects(struct crossrank *x)
{
    size_t cap = 0;
    for (size_t i = 0; i < x->nslow; i++) {
        const struct xr_slow *a = &x->slow[i];
        if (!a->p2p)
            continue;
        bool done = false;
        for (size_t k = 0; k < i && !done; k++)
            done = x->slow[k].p2p && x->slow[k].comm == a->comm;
        if (done)
            continue;  /* the communicator was looked at from its first slow pair */
        int cand[2] = { a->src, a->dst };
        for (int c = 0; c < 2; c++) {
            if (c == 1 && cand[1] == cand[0])
                break;
            size_t pairs = 0;
            bool every = true;
            for (size_t k = i; k < x->nslow && every; k++) {
                const struct xr_slow *b = &x->slow[k];
                if (!b->p2p || b->comm != a->comm)
                    continue;
                pairs++;
                every = b->src == cand[c] || b->dst == cand[c];
            }
            if (!every || pairs < 2)
                continue;
            if (x->nsuspects == cap)
                x->suspects = xrealloc(x->suspects, (cap = cap ? 2 * cap : 4) * sizeof *x->suspects);
            x->suspects[x->nsuspects++] = (struct xr_suspect){ a->comm, cand[c], pairs };
        }
    }
}

void xr_find_slow(const struct report *r, struct crossrank *x)
{
    /* Collectives: complete, not grouped (a group's interval is all of its
     * ops'), and timed. */
    struct sample *v = xmalloc((x->ninstances + x->npairs + 1) * sizeof *v);
    size_t n = 0, best = 0;
    for (size_t i = 0; i < x->ninstances; i++) {
        const struct xr_instance *in = &x->instances[i];
        if (in->grouped || in->n < 2 || (in->nranks && in->n != (size_t)in->nranks) || in->busbw_gbs <= 0)
            continue;
        v[n++] = (struct sample){ in->bytes, in->comm, in->seq, in->replay, in->op, -1, -1, in->busbw_gbs };
    }
    qsort(v, n, sizeof *v, cmp_group);
    flag(r, x, v, n, false, &best);
    n = 0;
    for (size_t i = 0; i < x->npairs; i++) {
        const struct xr_pair *p = &x->pairs[i];
        if (p->busbw_gbs > 0)
            v[n++] = (struct sample){ p->bytes, p->comm, p->order, 0, xr_event(r, p->send)->op,
                                      p->src, p->dst, p->busbw_gbs };
    }
    qsort(v, n, sizeof *v, cmp_group);
    flag(r, x, v, n, true, &best);
    free(v);
    if (x->nslow)
        qsort(x->slow, x->nslow, sizeof *x->slow, cmp_slow);
    find_suspects(x);
}

/* ---- NCCLTAP_EXPECT_BUSBW_GBS=[OP:]GBS[@MINBYTES],... ---- */

static bool parse_bytes(const char *s, const char *end, uint64_t *out)
{
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || errno || !(v >= 0) || !isfinite(v))
        return false;
    double unit = 1;
    if (e < end) {
        switch (*e == 'k' || *e == 'm' || *e == 'g' ? *e - 'a' + 'A' : *e) {
        case 'K': unit = 1024.0; break;
        case 'M': unit = 1048576.0; break;
        case 'G': unit = 1073741824.0; break;
        default: return false;
        }
        e++;
        if (e < end && *e == 'i')
            e++;  /* MiB */
        if (e < end && (*e == 'B' || *e == 'b'))
            e++;
    }
    if (e != end || v * unit > 1.8e19)
        return false;
    *out = (uint64_t)(v * unit + 0.5);
    return true;
}

/* Says why the value is not used (the renderer quotes x->expect_bad). */
static bool bad_expect(struct crossrank *x, const char *why, const char *item, size_t len)
{
    x->expect_error = why;
    len = len < sizeof x->expect_bad ? len : sizeof x->expect_bad - 1;
    memcpy(x->expect_bad, item, len);
    x->expect_bad[len] = 0;
    x->nexpect = 0;
    return false;
}

bool xr_parse_expect(struct crossrank *x, const char *spec)
{
    x->nexpect = 0;
    x->expect_error = NULL;
    for (const char *p = spec; *p;) {
        const char *end = strchr(p, ',');
        end = end ? end : p + strlen(p);
        if (x->nexpect == XR_EXPECT_MAX)
            return bad_expect(x, "more than 16 entries", p, (size_t)(end - p));
        struct xr_expect e = { .op_name = "" };
        const char *colon = memchr(p, ':', (size_t)(end - p)), *at = memchr(p, '@', (size_t)(end - p));
        const char *num = p;
        if (colon) {
            if (colon == p || (size_t)(colon - p) >= sizeof e.op_name || (at && at < colon))
                return bad_expect(x, "not [OP:]GBS[@MINBYTES]", p, (size_t)(end - p));
            memcpy(e.op_name, p, (size_t)(colon - p));
            num = colon + 1;
        }
        const char *num_end = at ? at : end;
        char *stop;
        errno = 0;
        e.gbs = num < num_end ? strtod(num, &stop) : 0;
        if (num == num_end || stop != num_end || errno || !(e.gbs > 0) || e.gbs > 1e9)
            return bad_expect(x, "not [OP:]GBS[@MINBYTES]", p, (size_t)(end - p));
        if (at && !parse_bytes(at + 1, end, &e.min_bytes))
            return bad_expect(x, "not [OP:]GBS[@MINBYTES]", p, (size_t)(end - p));
        x->expect[x->nexpect++] = e;
        p = *end ? end + 1 : end;
    }
    return true;
}

double xr_expected_gbs(const struct crossrank *x, const char *name, uint64_t bytes)
{
    /* An entry for the op itself wins over one for every op. */
    double any = 0, own = 0;
    for (size_t i = 0; i < x->nexpect; i++) {
        const struct xr_expect *e = &x->expect[i];
        if (bytes < e->min_bytes)
            continue;
        if (!e->op_name[0])
            any = e->gbs;
        else if (strcasecmp(e->op_name, name) == 0)
            own = e->gbs;
    }
    return own > 0 ? own : any;
}
