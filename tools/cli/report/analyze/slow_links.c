/* Slow links, found where half of the pairs or more are slow. The median
 * rule of slow_transfers.c needs a healthy majority: a slow link at rank 1
 * of a 4-rank ring slows 2 of its 4 pairs, and the median falls between
 * them. Here each rank is compared with what does not involve it: rank r
 * is the slow end when every pair it is in runs under XR_SLOW_FRACTION x
 * the median of the pairs without it. A healthy rank has a healthy pair
 * (so it is never named beside the slow one), and the pairs without the
 * slow rank are healthy however few they are. Where every pair has the
 * rank (2 ranks), only the busbw the user expects can tell.
 *
 * Where a communicator ran collectives, each rank's transfer time from the
 * last arrival is compared the same way (a rank whose link is slow may end
 * later than the others); ranks of a ring that all end together are told
 * apart by nothing, and nothing is named. */
#include "slow_links.h"
#include "slow_transfers.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int cmp_links(const void *a, const void *b)
{
    const struct xr_links *x = a, *y = b;
    return (x->comm > y->comm) - (x->comm < y->comm);
}

static struct xr_links *add_links(struct crossrank *x, size_t *cap, uint64_t comm)
{
    if (x->nlinks == *cap)
        x->links = xrealloc(x->links, (*cap = *cap ? 2 * *cap : 8) * sizeof *x->links);
    struct xr_links *l = &x->links[x->nlinks++];
    memset(l, 0, sizeof *l);
    l->comm = comm;
    return l;
}

/* Pairs [i, end) of one communicator: its cells at the largest size sent. */
static void fill_cells(const struct report *r, const struct crossrank *x, size_t i, size_t end,
                       struct xr_links *l, double *scratch)
{
    for (size_t k = i; k < end; k++)
        if (x->pairs[k].busbw_gbs > 0 && x->pairs[k].bytes > l->p2p_bytes) {
            l->p2p_bytes = x->pairs[k].bytes;
            l->p2p_op = xr_event(r, x->pairs[k].send)->op;
        }
    if (!l->p2p_bytes)
        return;
    l->cells = xmalloc((end - i) * sizeof *l->cells);
    for (size_t k = i; k < end;) {
        const struct xr_pair *p = &x->pairs[k];
        size_t j = k, n = 0;
        for (; j < end && x->pairs[j].src == p->src && x->pairs[j].dst == p->dst; j++)
            if (x->pairs[j].bytes == l->p2p_bytes && x->pairs[j].busbw_gbs > 0)
                scratch[n++] = x->pairs[j].busbw_gbs;
        if (n)
            l->cells[l->ncells++] = (struct xr_link_cell){ p->src, p->dst, n, xr_median(scratch, n) };
        int top = p->src > p->dst ? p->src : p->dst;
        l->nranks = top + 1 > l->nranks ? top + 1 : l->nranks;
        k = j;
    }
}

/* An (op, bytes) is compared over at least this many instances: one is
 * no evidence (a communicator's first call of a size also connects). */
#define LINK_MIN_INSTANCES 5

/* Ranks of a collective end together but for their links; not a rooted
 * one (a broadcast's root ends first, the ranks down its pipeline later:
 * on 4 H200s DDP's one parameter broadcast of 96 MiB named ranks 2 and 3
 * slow links). */
static bool eligible(const struct report *r, const struct xr_instance *in)
{
    /* Every member timed: a stamped end is known only to its span, more
     * than a fast transfer takes. */
    return !in->grouped && in->nranks >= 2 && in->n == (size_t)in->nranks && in->transfer_ns > 0 && in->all_timed &&
           !xr_is_rooted(report_name(r, in->op));
}

struct size_key {
    uint64_t bytes;
    uint8_t op;
};

static int cmp_key(const void *a, const void *b)
{
    const struct size_key *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}

/* Of the eligible instances [i, end), the largest (op, bytes) that
 * LINK_MIN_INSTANCES or more have (sorted: a sweep of sizes is not
 * quadratic); false if none has. */
static bool largest_common(const struct report *r, const struct crossrank *x, size_t i, size_t end,
                           struct size_key *out)
{
    struct size_key *keys = xmalloc((end - i + 1) * sizeof *keys);
    size_t n = 0;
    for (size_t k = i; k < end; k++)
        if (eligible(r, &x->instances[k]))
            keys[n++] = (struct size_key){ x->instances[k].bytes, x->instances[k].op };
    if (n)
        qsort(keys, n, sizeof *keys, cmp_key);
    bool found = false;
    for (size_t j = 0; j < n;) {
        size_t run = j;
        while (run < n && !cmp_key(&keys[run], &keys[j]))
            run++;
        if (run - j >= LINK_MIN_INSTANCES) {
            *out = keys[j];  /* ascending: the last such run is the largest */
            found = true;
        }
        j = run;
    }
    free(keys);
    return found;
}

/* Instances [i, end) of one communicator: each rank's transfer time at its
 * largest eligible (op, bytes) of LINK_MIN_INSTANCES or more. */
static void fill_transfer(const struct report *r, const struct crossrank *x, size_t i, size_t end,
                          struct xr_links *l)
{
    struct size_key key;
    const struct xr_instance *pick = NULL;
    if (!largest_common(r, x, i, end, &key))
        return;
    size_t count = 0;
    for (size_t k = i; k < end; k++) {
        const struct xr_instance *in = &x->instances[k];
        if (eligible(r, in) && in->op == key.op && in->bytes == key.bytes) {
            pick = pick ? pick : in;
            count++;
        }
    }
    int n = pick->nranks;
    l->coll_op = pick->op;
    l->coll_bytes = pick->bytes;
    l->coll_instances = count;
    l->nranks = n > l->nranks ? n : l->nranks;
    l->transfer_us = xcalloc((size_t)l->nranks, sizeof *l->transfer_us);
    /* One rank at a time through one buffer of `count`: no copy of every
     * record (the report's memory per record is bounded: crossrank.scale).
     * An eligible instance is complete, its members by rank: member k is
     * rank k. */
    double *t = xmalloc(count * sizeof *t);
    for (int rank = 0; rank < n; rank++) {
        size_t c = 0;
        for (size_t k = i; k < end; k++) {
            const struct xr_instance *in = &x->instances[k];
            if (eligible(r, in) && in->op == pick->op && in->bytes == pick->bytes)
                t[c++] = (double)(xr_end(r, x->members[in->first + (size_t)rank]) - in->latest_start_ns) / 1e3;
        }
        l->transfer_us[rank] = xr_median(t, c);
    }
    free(t);
}

static void add_slow(struct crossrank *x, size_t *cap, const struct xr_slow_link *s)
{
    if (x->nslow_links == *cap)
        x->slow_links = xrealloc(x->slow_links, (*cap = *cap ? 2 * *cap : 4) * sizeof *x->slow_links);
    x->slow_links[x->nslow_links++] = *s;
}

/* Whether every cell is between the same two ranks (a 2-rank communicator,
 * or two ranks of a larger one that only talk to each other). */
static bool one_pair(const struct xr_links *l)
{
    int a = l->cells[0].src, b = l->cells[0].dst;
    for (size_t i = 1; i < l->ncells; i++) {
        const struct xr_link_cell *c = &l->cells[i];
        if (!((c->src == a && c->dst == b) || (c->src == b && c->dst == a)))
            return false;
    }
    return true;
}

/* The ranks every pair of which is slow against the pairs without them. */
static void judge_pairs(const struct report *r, struct crossrank *x, const struct xr_links *l,
                        size_t *cap, double *with, double *without)
{
    size_t first = x->nslow_links;
    double expected = xr_expected_gbs(x, report_name(r, l->p2p_op), l->p2p_bytes);
    for (int rank = 0; rank < l->nranks; rank++) {
        size_t nw = 0, no = 0;
        double fastest = 0;
        for (size_t i = 0; i < l->ncells; i++) {
            const struct xr_link_cell *c = &l->cells[i];
            if (c->transfers < XR_LINK_MIN_TRANSFERS)
                continue;
            if (c->src == rank || c->dst == rank) {
                with[nw++] = c->busbw_gbs;
                fastest = c->busbw_gbs > fastest ? c->busbw_gbs : fastest;
            } else {
                without[no++] = c->busbw_gbs;
            }
        }
        if (!nw)
            continue;
        struct xr_slow_link s = { .comm = l->comm, .rank = rank, .src = -1, .dst = -1, .p2p = true,
                                  .bytes = l->p2p_bytes, .pairs = nw, .fastest_gbs = fastest,
                                  .busbw_gbs = xr_median(with, nw) };
        /* One pair without it is no reference: a healthy ring's pairs can
         * read 2x apart (each rank's send and receive are timed as one
         * group), and a pair whose other side went unrecorded leaves one. */
        bool job = no >= 2;
        if (job && nw < 2)
            continue; /* one pair of its own cannot say the rank is the slow end */
        s.reference = job ? XR_REF_JOB : XR_REF_EXPECTED;
        s.others_gbs = job ? xr_median(without, no) : expected;
        if (s.others_gbs <= 0 || fastest >= XR_SLOW_FRACTION * s.others_gbs)
            continue;
        if (!job && one_pair(l)) {
            /* Both ends of the only pair: the link, not a rank. */
            if (rank != (l->cells[0].src < l->cells[0].dst ? l->cells[0].src : l->cells[0].dst))
                continue;
            s.rank = -1;
            s.src = rank;
            s.dst = l->cells[0].src == rank ? l->cells[0].dst : l->cells[0].src;
        }
        add_slow(x, cap, &s);
    }
    /* Two ranks or more standing apart against the job is no single slow
     * end: the pairs measured two ways (a healthy simulated ring under
     * `auto` reads 49 and 119 GB/s), not one link. Such a communicator
     * names none, unless against the expected busbw. */
    size_t against_job = 0;
    for (size_t i = first; i < x->nslow_links; i++)
        against_job += x->slow_links[i].reference == XR_REF_JOB;
    if (against_job > 1) {
        size_t kept = first;
        for (size_t i = first; i < x->nslow_links; i++)
            if (x->slow_links[i].reference != XR_REF_JOB)
                x->slow_links[kept++] = x->slow_links[i];
        x->nslow_links = kept;
    }
}

/* The ranks whose transfer time at the collectives is well over the
 * others' (by more than the clocks' error: an aligned end is in it). */
static void judge_transfer(struct crossrank *x, const struct xr_links *l, size_t *cap, double *others)
{
    if (!l->transfer_us || l->nranks < 3)
        return;  /* with 2 ranks, either end could be the slow one */
    for (int rank = 0; rank < l->nranks; rank++) {
        size_t n = 0;
        for (int k = 0; k < l->nranks; k++)
            if (k != rank)
                others[n++] = l->transfer_us[k];
        double med = xr_median(others, n), t = l->transfer_us[rank];
        if (t * XR_SLOW_FRACTION <= med || (t - med) * 1e3 <= x->threshold_ns)
            continue;
        struct xr_slow_link s = { .comm = l->comm, .rank = rank, .src = -1, .dst = -1,
                                  .reference = XR_REF_JOB, .bytes = l->coll_bytes,
                                  .transfer_us = t, .others_us = med };
        add_slow(x, cap, &s);
    }
}

/* Whether `rank` of `comm` is a straggler that caused most of its
 * communicator's waiting: its lateness, not its link, slows the transfers
 * through it (a late rank's send and receive, grouped, wait for it). */
static bool straggling(const struct crossrank *x, uint64_t comm, int rank)
{
    for (size_t i = 0; i < x->nstragglers; i++)
        if (x->stragglers[i].comm == comm && x->stragglers[i].rank == rank && x->stragglers[i].caused_share >= 0.5)
            return true;
    return false;
}

/* Leaves out the slow links a straggler explains (xr_find_stragglers ran). */
static void drop_stragglers(struct crossrank *x)
{
    size_t kept = 0;
    for (size_t i = 0; i < x->nslow_links; i++) {
        const struct xr_slow_link *l = &x->slow_links[i];
        bool late = l->rank >= 0 ? straggling(x, l->comm, l->rank)
                                 : straggling(x, l->comm, l->src) || straggling(x, l->comm, l->dst);
        if (!late)
            x->slow_links[kept++] = *l;
    }
    x->nslow_links = kept;
}

void xr_find_slow_links(const struct report *r, struct crossrank *x)
{
    size_t cap = 0;
    double *scratch = xmalloc((x->npairs + 1) * sizeof *scratch);
    for (size_t i = 0; i < x->npairs;) {
        size_t j = i;
        while (j < x->npairs && x->pairs[j].comm == x->pairs[i].comm)
            j++;
        fill_cells(r, x, i, j, add_links(x, &cap, x->pairs[i].comm), scratch);
        i = j;
    }
    size_t from_pairs = x->nlinks;  /* sorted by comm: found by bsearch */
    for (size_t i = 0; i < x->ninstances;) {
        size_t j = i;
        while (j < x->ninstances && x->instances[j].comm == x->instances[i].comm)
            j++;
        struct xr_links key = { .comm = x->instances[i].comm };
        struct xr_links *l = from_pairs ? bsearch(&key, x->links, from_pairs, sizeof *x->links, cmp_links)
                                        : NULL;
        fill_transfer(r, x, i, j, l ? l : add_links(x, &cap, key.comm));
        i = j;
    }
    if (x->nlinks)
        qsort(x->links, x->nlinks, sizeof *x->links, cmp_links);
    free(scratch);
    size_t slow_cap = 0, width = 1;
    for (size_t i = 0; i < x->nlinks; i++) {
        size_t w = x->links[i].ncells > (size_t)x->links[i].nranks ? x->links[i].ncells
                                                                   : (size_t)x->links[i].nranks;
        width = w > width ? w : width;
    }
    double *a = xmalloc(width * sizeof *a), *b = xmalloc(width * sizeof *b);
    for (size_t i = 0; i < x->nlinks; i++) {
        judge_pairs(r, x, &x->links[i], &slow_cap, a, b);
        judge_transfer(x, &x->links[i], &slow_cap, a);
    }
    drop_stragglers(x);
    free(a);
    free(b);
}

void xr_free_links(struct crossrank *x)
{
    for (size_t i = 0; i < x->nlinks; i++) {
        free(x->links[i].cells);
        free(x->links[i].transfer_us);
    }
    free(x->links);
    free(x->slow_links);
}
