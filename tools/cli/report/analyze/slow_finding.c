/* SLOW LINK, SLOW and BELOW EXPECTED findings (slow_finding.h). Each
 * costs its slow instances' time over what the reference busbw would
 * have taken. A link that stands apart (crossrank's slow_links) is one
 * finding at its slow end, not one per slow pair through it. */
#include "slow_finding.h"
#include "crossrank_base.h"
#include "finding.h"

/* Whether a slow link (slow_links.c) already names s's pair: a rank in it
 * that is the slow end, or the pair itself. */
static bool link_named(const struct crossrank *x, const struct xr_slow *s)
{
    if (!s->p2p)
        return false;
    for (size_t i = 0; i < x->nslow_links; i++) {
        const struct xr_slow_link *l = &x->slow_links[i];
        if (l->comm != s->comm || !l->p2p)
            continue;
        if (l->rank >= 0 ? (l->rank == s->src || l->rank == s->dst)
                         : ((l->src == s->src && l->dst == s->dst) || (l->src == s->dst && l->dst == s->src)))
            return true;
    }
    return false;
}

/* What s's slow instances took over what the reference busbw would have
 * taken, in us (busbw in GB/s is bus bytes per ns). */
static double slow_cost_us(const struct report *r, const struct xr_slow *s, double reference_gbs)
{
    if (!(s->busbw_gbs > 0.0) || !(reference_gbs > s->busbw_gbs))
        return 0.0;
    double bus = (double)s->bytes * (s->p2p ? 1.0 : xr_bus_factor(report_name(r, s->op), s->nranks));
    return (double)s->slow * bus * (1.0 / s->busbw_gbs - 1.0 / reference_gbs) / 1e3;
}

/* The reference s is slow against: the expected busbw, or the job's median. */
static double reference_of(const struct xr_slow *s)
{
    return s->reference == XR_REF_EXPECTED ? s->expected_gbs : s->median_busbw_gbs;
}

static void fill_slow(const struct report *r, const struct xr_slow *s, struct finding *v)
{
    struct slow_evidence *e = &v->evidence.slow;
    v->comm = s->comm;
    v->op = report_name(r, s->op);
    v->bytes = s->bytes;
    v->seq = s->nworst ? s->worst_seq[0] : 0;
    v->replay = s->nworst ? s->worst_replay[0] : 0;
    *e = (struct slow_evidence){ .basis = SLOW_INSTANCES, .busbw_gbs = s->busbw_gbs, .reference_gbs = reference_of(s),
                                 .slow = s->slow, .instances = s->instances, .nranks = s->nranks };
    v->cost_us = slow_cost_us(r, s, e->reference_gbs);
    if (s->p2p) {
        v->rank = s->src;
        v->peer = s->dst;
        v->file = finding_file_of(r, s->comm, s->src);
    }
}

/* A link that stands apart (slow_links.c): a rank all of whose send/recv
 * pairs are slow against the pairs without it, the only pair of a 2-rank
 * communicator against the expected busbw, or a rank whose collective
 * transfers take longer than the other ranks'. Its cost: its slow pairs'
 * time over the job's median. */
static void add_link(const struct report *r, const struct xr_slow_link *l, struct findings *f)
{
    const struct crossrank *x = r->cross;
    struct finding *v = finding_add(f, FINDING_SLOW_LINK, SECTION_SLOW_TRANSFERS);
    struct slow_evidence *e = &v->evidence.slow;
    v->comm = l->comm;
    v->bytes = l->bytes;
    v->rank = l->rank >= 0 ? l->rank : l->src;
    v->peer = l->rank >= 0 ? -1 : l->dst;
    v->file = finding_file_of(r, l->comm, v->rank);
    *e = (struct slow_evidence){ .busbw_gbs = l->busbw_gbs, .reference_gbs = l->others_gbs, .slow = l->pairs,
                                 .expected = l->reference == XR_REF_EXPECTED };
    if (!l->p2p && l->transfer_us > 0.0) {
        e->basis = SLOW_RANK_TRANSFERS;
        e->transfer_us = l->transfer_us;
        e->others_us = l->others_us;
    } else {
        e->basis = v->peer < 0 ? SLOW_RANK_PAIRS : SLOW_PAIR;
    }
    for (size_t i = 0; i < x->nslow; i++) {
        const struct xr_slow *s = &x->slow[i];
        if (s->p2p && s->comm == l->comm && (s->src == v->rank || s->dst == v->rank))
            v->cost_us += slow_cost_us(r, s, reference_of(s));
    }
}

/* Whether slow pair s has rank u->rank at one end. */
static bool through(const struct xr_suspect *u, const struct xr_slow *s)
{
    return s->p2p && s->comm == u->comm && (s->src == u->rank || s->dst == u->rank);
}

/* A suspect (crossrank: a rank in every slow pair of its communicator)
 * whose slow pairs reach two peers or more: its link is the one they
 * share (pairs 0->1 and 1->2 slow: rank 1's), where slow_links.c named
 * none of them (the pairs without it left too few transfers). */
static bool suspect_named(const struct crossrank *x, const struct xr_suspect *u)
{
    int peer = -1;
    for (size_t i = 0; i < x->nslow; i++) {
        const struct xr_slow *s = &x->slow[i];
        if (!through(u, s) || s->instances < XR_LINK_MIN_TRANSFERS)
            continue;
        if (link_named(x, s))
            return false;  /* slow_links.c named it already */
        int other = s->src == u->rank ? s->dst : s->src;
        if (peer >= 0 && other != peer)
            return true;
        peer = other;
    }
    return false;
}

static const struct xr_suspect *suspect_of(const struct crossrank *x, const struct xr_slow *s)
{
    for (size_t i = 0; i < x->nsuspects; i++)
        if (through(&x->suspects[i], s) && suspect_named(x, &x->suspects[i]))
            return &x->suspects[i];
    return NULL;
}

/* One finding for a suspect's link: its slowest pair against the job, the
 * cost of all its slow pairs. */
static void add_suspect(const struct report *r, const struct xr_suspect *u, struct findings *f)
{
    const struct crossrank *x = r->cross;
    struct finding *v = finding_add(f, FINDING_SLOW_LINK, SECTION_SLOW_TRANSFERS);
    struct slow_evidence *e = &v->evidence.slow;
    e->basis = SLOW_SUSPECT;
    v->rank = u->rank;
    v->comm = u->comm;
    v->file = finding_file_of(r, u->comm, u->rank);
    for (size_t i = 0; i < x->nslow; i++) {
        const struct xr_slow *s = &x->slow[i];
        if (!through(u, s) || s->instances < XR_LINK_MIN_TRANSFERS)
            continue;
        double ref = reference_of(s);
        e->slow++;
        v->cost_us += slow_cost_us(r, s, ref);
        if (!v->op || s->busbw_gbs / ref < e->busbw_gbs / e->reference_gbs) {
            v->op = report_name(r, s->op);
            v->bytes = s->bytes;
            e->busbw_gbs = s->busbw_gbs;
            e->reference_gbs = ref;
            e->expected = s->reference == XR_REF_EXPECTED;
        }
    }
}

void slow_findings(const struct finding_sources *in, struct findings *f)
{
    if (!f->records)
        return;
    const struct report *r = in->r;
    const struct crossrank *x = r->cross;
    for (size_t i = 0; i < x->nslow_links; i++)
        add_link(r, &x->slow_links[i], f);
    for (size_t i = 0; i < x->nsuspects; i++)
        if (suspect_named(x, &x->suspects[i]))
            add_suspect(r, &x->suspects[i], f);
    for (size_t i = 0; i < x->nslow; i++) {
        const struct xr_slow *s = &x->slow[i];
        if (link_named(x, s) || (s->p2p && s->instances < XR_LINK_MIN_TRANSFERS) || suspect_of(x, s))
            continue;
        bool job = s->reference == XR_REF_JOB;
        enum finding_kind kind = !job ? FINDING_BELOW_EXPECTED : s->p2p ? FINDING_SLOW_LINK : FINDING_SLOW_TRANSFER;
        fill_slow(r, s, finding_add(f, kind, SECTION_SLOW_TRANSFERS));
    }
}
