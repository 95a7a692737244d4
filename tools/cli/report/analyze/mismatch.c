/* Collective mismatches (mismatch.h): each instance crossrank matched,
 * its members' records compared; the ranks grouped by what they issued. */
#include "mismatch.h"
#include "crossrank_base.h"
#include "nccl/nccl_ops.h"
#include "op_sites.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* What a record says was issued, as compared: names are interned, so
 * equal names are equal indices. */
static bool same_call(const struct op_event *a, const struct op_event *b)
{
    return a->op == b->op && a->dtype == b->dtype && a->bytes == b->bytes && a->peer == b->peer &&
           a->redop == b->redop;
}

/* A reduction is compared where every member recorded one (a trace, or
 * an older per-op file, records none): else it is left out of the key. */
static void blank_unknown_redops(struct op_event *calls, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (calls[i].redop == OP_REDOP_UNKNOWN) {
            for (size_t k = 0; k < n; k++)
                calls[k].redop = OP_REDOP_UNKNOWN;
            return;
        }
}

/* Per file, per record: the sends and receives its (comm, rank) run
 * recorded before it; NULL for a file with none. */
static uint32_t **p2p_before_of(const struct report *r)
{
    uint32_t **v = xcalloc(r->nfiles ? r->nfiles : 1, sizeof *v);
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        bool any = false;
        for (size_t k = 0; k < f->nevents && !any; k++)
            any = xr_is_p2p(report_name(r, f->events[k].op));
        if (!any)
            continue;
        v[i] = xmalloc(f->nevents * sizeof *v[i]);
        uint32_t n = 0;
        for (size_t k = 0; k < f->nevents; k++) {
            const struct op_event *e = &f->events[k];
            if (k && (e->comm != f->events[k - 1].comm || e->rank != f->events[k - 1].rank))
                n = 0;  /* runs are by (comm, rank, seq): a new run */
            v[i][k] = n;
            n += xr_is_p2p(report_name(r, e->op));
        }
    }
    return v;
}

/* Whether the members' seqs align: as many sends and receives recorded
 * before it on every rank. */
static bool aligned(uint32_t **p2p, const struct crossrank *x, const struct xr_instance *in)
{
    uint32_t first = 0;
    for (size_t k = 0; k < in->n; k++) {
        struct xr_member m = x->members[in->first + k];
        uint32_t b = p2p[m.file] ? p2p[m.file][m.event] : 0;
        if (k && b != first)
            return false;
        first = b;
    }
    return true;
}

/* The count argument S implies: S over the bytes of one element as the op
 * counts them (n ranks' for AllGather, ReduceScatter...); 0 unknown. */
static uint64_t count_of(const struct report *r, const struct op_event *e, int nranks)
{
    int op = tap_op_from_name(report_name(r, e->op)), dtype = tap_dtype_from_name(report_name(r, e->dtype));
    if (op < 0 || dtype < 0)
        return 0;
    uint64_t unit = tap_op_bytes((enum tap_op)op, 1, dtype, nranks);
    return unit && e->bytes % unit == 0 ? e->bytes / unit : 0;
}

/* Call sites are looked up per process, only for those named. */
struct site_cache {
    struct op_sites *v;
    bool *done;
};

static const struct callsite *site_of(struct site_cache *c, const struct report *r, uint32_t file,
                                      const struct op_event *e)
{
    if (!c->done[file]) {
        op_sites_of_file(&r->files[file], &c->v[file]);
        c->done[file] = true;
    }
    return op_site(&c->v[file], r, e);
}

/* The sides of a mismatched instance, most ranks first. */
static int cmp_side(const void *a, const void *b)
{
    const struct mismatch_side *x = a, *y = b;
    if (x->nranks != y->nranks)
        return x->nranks > y->nranks ? -1 : 1;
    return (x->ranks[0] > y->ranks[0]) - (x->ranks[0] < y->ranks[0]);
}

/* The sides of instance `in`, whose members' calls (redops blanked) are
 * calls[0..in->n). */
static void fill_sides(const struct report *r, const struct crossrank *x, const struct xr_instance *in,
                       const struct op_event *calls, struct site_cache *sc, struct mismatch *m)
{
    m->sides = xcalloc(in->n, sizeof *m->sides);
    size_t *rep = xmalloc(in->n * sizeof *rep);  /* per side: the member whose call it is */
    for (size_t k = 0; k < in->n; k++) {
        struct xr_member mb = x->members[in->first + k];
        const struct op_event *e = &calls[k];
        struct mismatch_side *s = NULL;
        for (size_t j = 0; j < m->nsides && !s; j++)
            if (same_call(&calls[rep[j]], e))
                s = &m->sides[j];
        if (!s) {
            rep[m->nsides] = k;
            s = &m->sides[m->nsides++];
            *s = (struct mismatch_side){ .op = report_name(r, e->op), .dtype = report_name(r, e->dtype),
                                         .redop = e->redop, .root = e->peer, .bytes = e->bytes,
                                         .count = count_of(r, e, in->nranks), .file = &r->files[mb.file],
                                         .site = site_of(sc, r, mb.file, xr_event(r, mb)) };
            s->ranks = xmalloc(in->n * sizeof *s->ranks);
        }
        s->ranks[s->nranks++] = e->rank;  /* members are by rank: ascending */
    }
    free(rep);
    qsort(m->sides, m->nsides, sizeof *m->sides, cmp_side);
    m->majority = m->sides[0].nranks > m->sides[1].nranks;
}

static struct mismatch_comm *comm_entry(struct mismatches *out, uint64_t comm)
{
    if (out->ncomms && out->comms[out->ncomms - 1].comm == comm)
        return &out->comms[out->ncomms - 1];
    out->comms = xrealloc(out->comms, (out->ncomms + 1) * sizeof *out->comms);
    out->comms[out->ncomms] = (struct mismatch_comm){ .comm = comm, .first = out->n };
    return &out->comms[out->ncomms++];
}

void mismatch_analyze(const struct report *r, struct mismatches *out)
{
    memset(out, 0, sizeof *out);
    const struct crossrank *x = r->cross;
    if (!x || !x->ninstances)
        return;
    uint32_t **p2p = p2p_before_of(r);
    struct site_cache sc = { xcalloc(r->nfiles, sizeof *sc.v), xcalloc(r->nfiles, sizeof *sc.done) };
    struct op_event *calls = NULL;
    size_t ccap = 0;
    for (size_t i = 0; i < x->ninstances; i++) {  /* by comm, then seq, then replay */
        const struct xr_instance *in = &x->instances[i];
        if (in->n < 2)
            continue;
        if (!aligned(p2p, x, in)) {
            out->unaligned++;
            continue;
        }
        out->compared++;
        if (in->n > ccap)
            calls = xrealloc(calls, (ccap = in->n) * sizeof *calls);
        for (size_t k = 0; k < in->n; k++)
            calls[k] = *xr_event(r, x->members[in->first + k]);
        blank_unknown_redops(calls, in->n);
        size_t k = 1;
        while (k < in->n && same_call(&calls[0], &calls[k]))
            k++;
        if (k == in->n)
            continue;
        struct mismatch_comm *c = comm_entry(out, in->comm);
        if (c->instances++ >= MISMATCH_KEEP_PER_COMM)
            continue;
        out->v = xrealloc(out->v, (out->n + 1) * sizeof *out->v);
        struct mismatch *m = &out->v[out->n++];
        *m = (struct mismatch){ .comm = in->comm, .seq = in->seq, .replay = in->replay, .nranks = in->nranks };
        fill_sides(r, x, in, calls, &sc, m);
        c->n++;
    }
    free(calls);
    for (size_t i = 0; i < r->nfiles; i++) {
        free(p2p[i]);
        if (sc.done[i])
            op_sites_free(&sc.v[i]);
    }
    free(p2p);
    free(sc.v);
    free(sc.done);
}

void mismatches_free(struct mismatches *m)
{
    for (size_t i = 0; i < m->n; i++) {
        for (size_t k = 0; k < m->v[i].nsides; k++)
            free(m->v[i].sides[k].ranks);
        free(m->v[i].sides);
    }
    free(m->v);
    free(m->comms);
    memset(m, 0, sizeof *m);
}
