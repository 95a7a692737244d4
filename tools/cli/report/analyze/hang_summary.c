/* Who is stuck and who is missing. Per communicator that some process
 * reports an op pending in: the stuck seq S is the oldest such op. A rank
 * whose GPU started S waits in it (stuck), as does one that issued S
 * untimed and completed nothing from S on; a rank that never issued S, or
 * issued it but whose GPU never reached it (its start event did not
 * complete), is missing, and its last op says where it is instead.
 *
 * A process quiet since an untimed op reports that op (untimed): its last,
 * which may well have completed. Where some rank reports one, and the
 * ranks have not all issued as many ops, S is rather the first op some
 * rank never issued (unless a timed op pending is older): that rank is
 * missing, those that issued S and completed nothing from it on wait in
 * it. Where all issued as many, S is their last: all wait in it, or all
 * are idle; nccltap cannot tell which rank's GPU did not reach it.
 *
 * A rank whose GPU did not start a timed S, and whose latest op known
 * complete is older than S - 1, stopped somewhere between, at an op auto
 * did not time: it is missing where another rank's GPU reached S (it is
 * behind that rank); where none did, all may be stopped at that same
 * untimed op, and it is counted with the ranks waiting, untimed.
 *
 * Ranks that report S pending as different calls (op or size), or that
 * completed S as another call than the ranks waiting in it, issued a
 * mismatch: the calls are kept, for the finding to say so. */
#include "hang_summary.h"
#include "callsites.h"
#include "crossrank_base.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* What is known of each rank of one communicator, gathered once: its
 * hang report's entry and that report's process, and the ops its rank
 * file says it issued. Looked up rank by rank instead, every report was
 * scanned once per rank: hang files claiming 2^20 ranks (the most
 * accepted) took minutes. */
struct comm_ranks {
    int nranks;
    const struct hang_comm **entry;  /* [rank], NULL: no hang report has it */
    const struct rank_file **file;   /* [rank]: the process of that report */
    uint64_t *issued;                /* [rank]: ops issued, as its rank file says */
    bool *in_file;                   /* [rank]: some rank file has it */
};

static void comm_ranks_make(const struct report *r, uint64_t comm, int nranks, struct comm_ranks *x)
{
    size_t n = nranks > 0 ? (size_t)nranks : 1;
    *x = (struct comm_ranks){ nranks, xcalloc(n, sizeof *x->entry), xcalloc(n, sizeof *x->file),
                              xcalloc(n, sizeof *x->issued), xcalloc(n, sizeof *x->in_file) };
    /* The first of each, as the reports and files are listed. */
    for (size_t i = 0; i < r->nhangs; i++)
        for (size_t k = 0; k < r->hangs[i].ncomms; k++) {
            const struct hang_comm *e = &r->hangs[i].comms[k];
            if (e->comm == comm && e->rank >= 0 && e->rank < nranks && !x->entry[e->rank]) {
                x->entry[e->rank] = e;
                x->file[e->rank] = &r->files[r->hangs[i].file];
            }
        }
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t k = 0; k < r->files[i].ncomms; k++) {
            const struct comm_entry *c = &r->files[i].comms[k];
            if (c->rank >= 0 && c->rank < nranks && !x->in_file[c->rank] && strtoull(c->id, NULL, 16) == comm) {
                x->in_file[c->rank] = true;
                x->issued[c->rank] = c->calls;
            }
        }
}

static void comm_ranks_free(struct comm_ranks *x)
{
    free(x->entry);
    free(x->file);
    free(x->issued);
    free(x->in_file);
}

/* Ops `rank` issued: its hang report's count, else its rank file's;
 * *known false when neither has it. */
static uint64_t issued_by(const struct comm_ranks *x, int rank, bool *known)
{
    *known = x->entry[rank] || x->in_file[rank];
    return x->entry[rank] ? x->entry[rank]->issued : x->issued[rank];
}

static const struct callsite *site_of(const struct rank_file *f, unsigned id)
{
    for (size_t i = 0; id && i < f->nsites; i++)
        if (f->sites[i].id == id)
            return &f->sites[i];
    return NULL;
}

/* Counts `rank`, which issued the stuck op at `site`, under that site. */
static void add_site(struct hang_instance *h, const struct callsite *site, int rank)
{
    size_t i = 0;
    while (i < h->nsites && callsite_cmp_frames(h->sites[i].site, site) != 0)
        i++;
    if (i == h->nsites) {
        h->sites = xrealloc(h->sites, (h->nsites + 1) * sizeof *h->sites);
        h->sites[h->nsites++] = (struct hang_site){ site, xcalloc((size_t)h->nranks + 1, sizeof(int)), 0 };
    }
    h->sites[i].ranks[h->sites[i].nranks++] = rank;
}

static bool seen_comm(const struct hang_summary *s, uint64_t comm)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].comm == comm)
            return true;
    return false;
}

/* Whether some rank's GPU started S: every op before S completed there. */
static bool some_rank_reached(const struct comm_ranks *x, const struct hang_instance *h)
{
    for (int rank = 0; rank < h->nranks; rank++) {
        const struct hang_comm *e = x->entry[rank];
        if (e && e->pending && e->seq == h->seq && e->started)
            return true;
    }
    return false;
}

static void classify(const struct comm_ranks *x, struct hang_instance *h)
{
    bool reached = some_rank_reached(x, h);
    h->done_before = -1;
    h->stuck = xcalloc((size_t)h->nranks + 1, sizeof *h->stuck);
    h->missing = xcalloc((size_t)h->nranks + 1, sizeof *h->missing);
    h->unknown = xcalloc((size_t)h->nranks + 1, sizeof *h->unknown);
    for (int rank = 0; rank < h->nranks; rank++) {
        const struct hang_comm *e = x->entry[rank];
        if (e && e->pending && e->seq == h->seq) {
            const struct callsite *site = site_of(x->file[rank], e->site);
            if (site)
                add_site(h, site, rank);
            bool gap = !e->started && e->last_done < (int64_t)h->seq - 1;
            if (e->started || e->untimed || (gap && !reached)) {
                h->stuck[h->nstuck++] = rank;
                h->nuntimed += !e->started;
                if (gap && (h->done_before < 0 || e->last_done < h->done_before))
                    h->done_before = e->last_done;
            } else {
                h->missing[h->nmissing++] = (struct hang_missing){ rank, gap ? e->last_done : (int64_t)h->seq - 1,
                                                                   true };
            }
            continue;
        }
        /* It issued S without timing it (auto samples), a later timed op
         * waits and none from S on completed: it waits in S with the
         * others (S cannot complete on it while a rank never reached S),
         * untimed; where its GPU is known complete only before S - 1, it
         * may as well have stopped there (done_before). */
        if (e && e->pending && e->seq > h->seq && e->last_done < (int64_t)h->seq) {
            h->stuck[h->nstuck++] = rank;
            h->nuntimed++;
            if (e->last_done < (int64_t)h->seq - 1 && (h->done_before < 0 || e->last_done < h->done_before))
                h->done_before = e->last_done;
            continue;
        }
        bool known;
        uint64_t issued = issued_by(x, rank, &known);
        if (known && issued <= h->seq)
            h->missing[h->nmissing++] = (struct hang_missing){ rank, (int64_t)issued - 1, false };
        else if (!known)
            h->unknown[h->nunknown++] = rank;
        /* Otherwise it went past S: it did its part. */
    }
}

/* S where some rank reports an untimed op (see the top): the fewest ops
 * any rank of the communicator issued, when another issued more; else the
 * oldest untimed op reported. At most `timed_seq`, the oldest timed op
 * pending (UINT64_MAX: none). */
static uint64_t stuck_seq_untimed(const struct comm_ranks *x, uint64_t timed_seq, uint64_t untimed_seq)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int rank = 0; rank < x->nranks; rank++) {
        bool known;
        uint64_t issued = issued_by(x, rank, &known);
        if (!known)
            continue;
        lo = issued < lo ? issued : lo;
        hi = issued > hi ? issued : hi;
    }
    uint64_t seq = lo < hi ? lo : untimed_seq;
    return seq < timed_seq ? seq : timed_seq;
}

/* The op and size of h->seq, from a report that has it pending, else
 * from one that called it in a burst between marks (still waiting). */
static void name_seq(const struct report *r, struct hang_instance *h)
{
    const struct hang_call_at *called = NULL;
    for (size_t j = 0; j < r->nhangs; j++)
        for (size_t m = 0; m < r->hangs[j].ncomms; m++) {
            const struct hang_comm *d = &r->hangs[j].comms[m];
            if (d->comm != h->comm)
                continue;
            if (d->pending && d->seq == h->seq) {
                h->op = d->op;
                h->bytes = d->bytes;
                return;
            }
            for (size_t k = 0; k < d->nbetween && !called; k++)
                called = d->between[k].seq == h->seq ? &d->between[k] : NULL;
        }
    /* No rank reports it: the one after the missing rank's last, which
     * another rank called between marks, or which none says. */
    h->op = called ? called->op : "unknown";
    h->bytes = called ? called->bytes : 0;
}

static int cmp_call(const void *a, const void *b)
{
    const struct hang_call *x = a, *y = b;
    if (x->nranks != y->nranks)
        return x->nranks > y->nranks ? -1 : 1;
    return (x->ranks[0] > y->ranks[0]) - (x->ranks[0] < y->ranks[0]);
}

static bool same_call(const struct hang_call *c, const struct hang_call *e, bool exact)
{
    return c->bytes == e->bytes && !strcmp(c->op, e->op) &&
           (!exact || (!strcmp(c->dtype, e->dtype) && c->redop == e->redop && c->root == e->root));
}

/* The report of `rank` pending at S, NULL if it has none. */
static const struct hang_comm *pending_at(const struct comm_ranks *x, const struct hang_instance *h, int rank)
{
    const struct hang_comm *e = x->entry[rank];
    return e && e->pending && e->seq == h->seq && e->op ? e : NULL;
}

/* The per-op record of S by `rank`, where it completed S (r->cross). */
static const struct op_event *completed_at(const struct report *r, const struct hang_instance *h, int rank)
{
    const struct xr_instance *in = r->cross ? xr_find(r->cross, h->comm, h->seq, 0) : NULL;
    for (size_t k = 0; in && k < in->n; k++) {
        const struct op_event *e = xr_event(r, r->cross->members[in->first + k]);
        if (e->rank == rank)
            return e;
    }
    return NULL;
}

/* `rank`'s call at S: pending (its hang report) or completed (its
 * record); false where neither says. */
static bool call_of(const struct report *r, const struct comm_ranks *x, const struct hang_instance *h, int rank,
                    struct hang_call *c)
{
    const struct hang_comm *e = pending_at(x, h, rank);
    if (e) {
        *c = (struct hang_call){ e->op, e->dtype ? e->dtype : "", e->redop, e->root, e->bytes, NULL, 0, false };
        return true;
    }
    const struct op_event *d = completed_at(r, h, rank);
    if (!d)
        return false;
    *c = (struct hang_call){ report_name(r, d->op), report_name(r, d->dtype), d->redop, d->peer, d->bytes, NULL, 0,
                             true };
    return true;
}

/* The calls the ranks made as S (hang_instance.calls): pending in their
 * hang reports, or completed in their per-op records; by op and size,
 * and by datatype, reduction and root where every one says them (older
 * shims' do not). None where any of them is a send or a receive: the two
 * sides of a transfer are different calls at one seq by design, and
 * ranks' sends and receives need not share seqs with each other's
 * collectives, so no mismatch can be told. */
static void name_calls(const struct report *r, const struct comm_ranks *x, struct hang_instance *h)
{
    bool exact = true;
    struct hang_call c;
    for (int rank = 0; rank < h->nranks; rank++) {
        if (!call_of(r, x, h, rank, &c))
            continue;
        if (xr_is_p2p(c.op))
            return;
        if (!c.dtype[0] || c.redop == OP_REDOP_UNKNOWN)
            exact = false;
    }
    h->calls = xcalloc((size_t)h->nranks + 1, sizeof *h->calls);
    for (int rank = 0; rank < h->nranks; rank++) {
        if (!call_of(r, x, h, rank, &c))
            continue;
        size_t i = 0;
        while (i < h->ncalls && !same_call(&h->calls[i], &c, exact))
            i++;
        if (i == h->ncalls) {
            if (!exact)
                c = (struct hang_call){ c.op, "", OP_REDOP_UNKNOWN, -1, c.bytes, NULL, 0, c.completed };
            c.ranks = xcalloc((size_t)h->nranks, sizeof(int));
            h->calls[h->ncalls++] = c;
        }
        h->calls[i].ranks[h->calls[i].nranks++] = rank;
    }
    qsort(h->calls, h->ncalls, sizeof *h->calls, cmp_call);
}

/* Whether the stuck op completed after all, on every rank: the files
 * written at the end hold it, matched across ranks. */
static void resolve(const struct report *r, struct hang_instance *h)
{
    const struct xr_instance *in = r->cross ? xr_find(r->cross, h->comm, h->seq, 0) : NULL;
    if (!in || in->n < 2 || (h->nranks && in->n != (size_t)h->nranks))
        return;
    h->resolved = true;
    h->took_s = (double)(in->end_ns - in->earliest_start_ns) / 1e9;
    h->late_rank = in->last_rank;
}

void report_hangs(const struct report *r, struct hang_summary *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    for (size_t i = 0; i < r->nhangs; i++)
        for (size_t k = 0; k < r->hangs[i].ncomms; k++) {
            const struct hang_comm *c = &r->hangs[i].comms[k];
            if (!c->pending || seen_comm(out, c->comm))
                continue;
            struct hang_instance h = { .comm = c->comm, .seq = c->seq, .op = c->op, .bytes = c->bytes,
                                       .nranks = c->nranks };
            /* The oldest op any rank of the communicator waits in. */
            uint64_t timed_seq = UINT64_MAX, untimed_seq = UINT64_MAX;
            for (size_t j = 0; j < r->nhangs; j++)
                for (size_t m = 0; m < r->hangs[j].ncomms; m++) {
                    const struct hang_comm *d = &r->hangs[j].comms[m];
                    if (d->comm != c->comm || !d->pending)
                        continue;
                    uint64_t *oldest = d->untimed ? &untimed_seq : &timed_seq;
                    *oldest = d->seq < *oldest ? d->seq : *oldest;
                    if (d->pending_s > h.pending_s)
                        h.pending_s = d->pending_s;
                    if (d->nranks > h.nranks)
                        h.nranks = d->nranks;
                }
            struct comm_ranks x;
            comm_ranks_make(r, h.comm, h.nranks, &x);
            h.seq = untimed_seq == UINT64_MAX ? timed_seq : stuck_seq_untimed(&x, timed_seq, untimed_seq);
            name_seq(r, &h);
            classify(&x, &h);
            name_calls(r, &x, &h);
            comm_ranks_free(&x);
            resolve(r, &h);
            if (out->n == cap)
                out->v = xrealloc(out->v, (cap = cap ? 2 * cap : 4) * sizeof *out->v);
            out->v[out->n++] = h;
        }
}

void hang_summary_free(struct hang_summary *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].stuck);
        free(s->v[i].missing);
        free(s->v[i].unknown);
        for (size_t k = 0; k < s->v[i].nsites; k++)
            free(s->v[i].sites[k].ranks);
        free(s->v[i].sites);
        for (size_t k = 0; k < s->v[i].ncalls; k++)
            free(s->v[i].calls[k].ranks);
        free(s->v[i].calls);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}
