/* The findings (findings.h): each analysis's verdicts as one list, the
 * culprit named, worst first. A collective mismatch comes first (results
 * are wrong, and it is the likely cause of a hang after it), then a hang
 * whatever it cost so far (the job stopped); the others by the time they
 * cost:
 * - a straggler: the other ranks' wait at its communicator's collectives;
 * - a slow transfer or link: its slow instances' time over what the
 *   reference busbw would have taken;
 * - the OS: the others' waiting that its descheduling before its calls
 *   explains.
 * A link that stands apart (crossrank's slow_links) is one finding at its
 * slow end, not one per slow pair through it. */
#include "findings.h"
#include "crossrank_base.h"
#include "merge.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct finding *add(struct findings *f, enum finding_kind kind, enum finding_section section)
{
    f->v = xrealloc(f->v, (f->n + 1) * sizeof *f->v);
    struct finding *x = &f->v[f->n++];
    *x = (struct finding){ .kind = kind, .section = section, .rank = -1, .peer = -1, .share = NAN,
                           .done_before = -1 };
    return x;
}

/* The process that holds `rank` of communicator `comm`, NULL if none says. */
static const struct rank_file *file_of(const struct report *r, uint64_t comm, int rank)
{
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t k = 0; k < r->files[i].ncomms; k++) {
            const struct comm_entry *c = &r->files[i].comms[k];
            if (c->rank == rank && strtoull(c->id, NULL, 16) == comm)
                return &r->files[i];
        }
    return NULL;
}

static void add_hangs(const struct report *r, struct findings *f)
{
    report_hangs(r, &f->hangs);
    for (size_t i = 0; i < f->hangs.n; i++) {
        const struct hang_instance *h = &f->hangs.v[i];
        struct finding *x = add(f, h->resolved ? FINDING_STALL : FINDING_HANG, SECTION_HANG);
        x->took_s = h->took_s;
        x->comm = h->comm;
        x->op = h->op;
        x->seq = h->seq;
        x->bytes = h->bytes;
        x->nranks = h->nranks;
        x->wait_us = h->pending_s * 1e6;
        x->cost_us = x->wait_us * (double)(h->nstuck ? h->nstuck : 1);
        x->waiting = h->stuck;
        x->nwaiting = h->nstuck;
        x->untimed = h->nstuck && h->nuntimed == h->nstuck;
        x->done_before = h->done_before;
        x->missing = h->missing;
        x->nmissing = h->nmissing;
        x->site = h->nsites ? h->sites[0].site : NULL;
        x->hang = h;
        if (h->ncalls >= 2 && !h->nmissing) {  /* a mismatch: the first rank of the call that differs */
            x->rank = h->calls[1].ranks[0];
            x->file = file_of(r, h->comm, x->rank);
        }
        if (h->nmissing) {
            x->rank = h->missing[0].rank;
            x->file = file_of(r, h->comm, x->rank);
        }
        if (h->resolved) {  /* the stall lasted took_s, for the rank that came last */
            x->rank = h->late_rank;
            x->file = file_of(r, h->comm, x->rank);
            x->wait_us = h->took_s * 1e6;
            x->cost_us = x->wait_us * (double)(h->nstuck ? h->nstuck : 1);
        }
    }
}

/* The waits process `file` experienced at collectives, us (crossrank). */
static double waited_us(const struct crossrank *x, uint32_t file)
{
    double sum = 0;
    for (size_t i = 0; i < x->nwaits; i++)
        if (x->waits[i].file == file)
            sum += x->waits[i].wait_us_total;
    return sum;
}

/* The NCCL time of the processes holding the other ranks of s's
 * communicator, us (each process once, the straggler's left out), NaN
 * when one cannot say; and their wall time in *wall_us. A process's NCCL
 * time holds its waits: where stamps' intervals put it below them (a
 * stamp's start may be later than the truth), the waits are its floor. */
static double others_nccl_us(const struct report *r, const struct xr_straggler *s, double *wall_us)
{
    double sum = 0;
    *wall_us = 0;
    bool any = false;
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        if (i == s->file)
            continue;
        bool member = false;
        for (size_t k = 0; k < f->ncomms && !member; k++)
            member = strtoull(f->comms[k].id, NULL, 16) == s->comm;
        if (!member)
            continue;
        double nccl = rank_file_nccl_share(f) * f->wall_s * 1e6, waited = waited_us(r->cross, (uint32_t)i);
        sum += nccl < waited ? waited : nccl;  /* NaN when unknown */
        *wall_us += f->wall_s * 1e6;
        any = true;
    }
    return any ? sum : NAN;
}

/* A straggler is a finding by what it cost, not by how often it was last
 * (a real one is late at the first collective after its own work, and on
 * time at the rest of the step): the waiting it caused is a material share
 * of the others' NCCL time and not nothing in their wall time (a job
 * stopped by a hang has little NCCL time), most of the waiting at its communicator is its
 * doing, standing out from the rest, and it was last more often than
 * chance (and it is listed: late XR_STRAGGLER_MIN_LAST times or more). */
#define FINDING_STRAGGLER_MIN_NCCL_SHARE 0.1
#define FINDING_STRAGGLER_MIN_WALL_SHARE 0.01
#define FINDING_STRAGGLER_MIN_CAUSED_SHARE 0.5
/* ... and it stands out: at least this many times what any other rank of
 * its communicator caused. Ranks that arrive in turn (jitter; 2 ranks
 * whose arrivals are a coin toss) each cause about as much. */
#define FINDING_STRAGGLER_MIN_LEAD 2.0
/* ... and it is last more often than chance makes a rank last: of the L
 * heaviest late collectives of its communicator (XR_HEAVY_SHARE: those
 * that made most of the waiting; some rank started last beyond the
 * threshold, where the records tell), at least L/n plus this many
 * standard deviations of that count (binomial, p = 1/n). A short run's
 * ranks descheduled in turn on a busy host each cause a burst of
 * waiting; a rank slower than the others is last again and again. */
#define FINDING_STRAGGLER_MIN_Z 3.0

/* The size of s's communicator, from its process's entry; 0 unknown. */
static int comm_size(const struct report *r, const struct xr_straggler *s)
{
    const struct rank_file *f = &r->files[s->file];
    for (size_t k = 0; k < f->ncomms; k++)
        if (strtoull(f->comms[k].id, NULL, 16) == s->comm)
            return f->comms[k].nranks;
    return 0;
}

/* Whether s was last more often than chance (FINDING_STRAGGLER_MIN_Z). */
static bool last_beyond_chance(const struct report *r, const struct xr_straggler *s)
{
    int n = comm_size(r, s);
    if (n < 2)
        return true;  /* not known: the cost alone judges */
    double p = 1.0 / n, l = (double)s->heavy_all;
    return (double)s->last_heavy >= p * l + FINDING_STRAGGLER_MIN_Z * sqrt(l * p * (1.0 - p));
}

static void add_stragglers(const struct report *r, struct findings *f)
{
    const struct crossrank *x = r->cross;
    for (size_t i = 0; i < x->nstragglers; i++) {
        const struct xr_straggler *s = &x->stragglers[i];
        double wall, others = others_nccl_us(r, s, &wall);
        double share = others > 0 ? s->caused_us_total / others : NAN;
        if (s->caused_share < FINDING_STRAGGLER_MIN_CAUSED_SHARE ||
            s->caused_us_total < FINDING_STRAGGLER_MIN_LEAD * s->next_us_total ||
            !(share >= FINDING_STRAGGLER_MIN_NCCL_SHARE) ||
            s->caused_us_total < FINDING_STRAGGLER_MIN_WALL_SHARE * wall || !last_beyond_chance(r, s))
            continue;
        struct finding *v = add(f, FINDING_STRAGGLER, SECTION_STRAGGLERS);
        v->rank = s->rank;
        v->file = &r->files[s->file];
        v->comm = s->comm;
        v->op = report_name(r, s->op);
        v->seq = s->nworst ? s->worst_seq[0] : 0;
        v->replay = s->nworst ? s->worst_replay[0] : 0;
        v->count = s->last;
        v->of = s->decided;
        v->measured = s->measured;
        v->calls = s->calls;
        v->wait_us = s->wait_us_mean;
        v->cost_us = s->caused_us_total;
        v->share = share > 1 ? 1 : share;  /* estimates of the waits and of NCCL time may cross */
        v->gap_late_us = s->gap_late_us;
        v->gap_other_us = s->gap_other_us;
    }
}

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

static void fill_slow(const struct report *r, const struct xr_slow *s, struct finding *v)
{
    v->comm = s->comm;
    v->op = report_name(r, s->op);
    v->bytes = s->bytes;
    v->nranks = s->nranks;
    v->count = s->slow;
    v->of = s->instances;
    v->busbw_gbs = s->busbw_gbs;
    v->reference_gbs = s->reference == XR_REF_EXPECTED ? s->expected_gbs : s->median_busbw_gbs;
    v->seq = s->nworst ? s->worst_seq[0] : 0;
    v->replay = s->nworst ? s->worst_replay[0] : 0;
    v->cost_us = slow_cost_us(r, s, v->reference_gbs);
    if (s->p2p) {
        v->rank = s->src;
        v->peer = s->dst;
        v->file = file_of(r, s->comm, s->src);
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
    struct finding *v = add(f, FINDING_SLOW_LINK, SECTION_SLOW_TRANSFERS);
    v->comm = l->comm;
    v->bytes = l->bytes;
    v->rank = l->rank >= 0 ? l->rank : l->src;
    v->peer = l->rank >= 0 ? -1 : l->dst;
    v->file = file_of(r, l->comm, v->rank);
    v->count = l->pairs;
    v->busbw_gbs = l->busbw_gbs;
    v->reference_gbs = l->others_gbs;
    v->expected = l->reference == XR_REF_EXPECTED;
    v->transfer_us = l->p2p ? 0.0 : l->transfer_us;
    v->others_us = l->p2p ? 0.0 : l->others_us;
    for (size_t i = 0; i < x->nslow; i++) {
        const struct xr_slow *s = &x->slow[i];
        if (s->p2p && s->comm == l->comm && (s->src == v->rank || s->dst == v->rank))
            v->cost_us += slow_cost_us(r, s, s->reference == XR_REF_EXPECTED ? s->expected_gbs
                                                                              : s->median_busbw_gbs);
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
    struct finding *v = add(f, FINDING_SLOW_LINK, SECTION_SLOW_TRANSFERS);
    v->suspect = true;
    v->rank = u->rank;
    v->peer = -1;
    v->comm = u->comm;
    v->file = file_of(r, u->comm, u->rank);
    for (size_t i = 0; i < x->nslow; i++) {
        const struct xr_slow *s = &x->slow[i];
        if (!through(u, s) || s->instances < XR_LINK_MIN_TRANSFERS)
            continue;
        double ref = s->reference == XR_REF_EXPECTED ? s->expected_gbs : s->median_busbw_gbs;
        v->count++;
        v->cost_us += slow_cost_us(r, s, ref);
        if (!v->op || s->busbw_gbs / ref < v->busbw_gbs / v->reference_gbs) {
            v->op = report_name(r, s->op);
            v->bytes = s->bytes;
            v->busbw_gbs = s->busbw_gbs;
            v->reference_gbs = ref;
            v->expected = s->reference == XR_REF_EXPECTED;
        }
    }
}

static void add_slow(const struct report *r, struct findings *f)
{
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
        fill_slow(r, s, add(f, kind, SECTION_SLOW_TRANSFERS));
    }
}

/* Per process, what its threads lost to the OS in its NCCL calls (over the
 * union of the calls' windows), and its op that lost most. */
/* The NCCL time of every process but `file`, us; NaN when one cannot say. */
static double others_nccl_all_us(const struct report *r, const struct rank_file *file)
{
    double sum = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        if (&r->files[i] != file)
            sum += rank_file_nccl_share(&r->files[i]) * r->files[i].wall_s * 1e6;
    return sum;
}

/* Whether `file` is already named a straggler: its lateness and what the
 * OS explains of it are said there (explain_stragglers). */
static bool named_straggler(const struct findings *f, const struct rank_file *file)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].kind == FINDING_STRAGGLER && f->v[i].file == file)
            return true;
    return false;
}

/* An OS finding by what it explains: a process whose threads, descheduled
 * before its calls, made the others wait a material share of their NCCL
 * time (os_proc.explained_ns). Time lost inside its own calls, while the
 * GPU works on, costs nobody: the OS section shows it, no finding. */
static void add_os(const struct report *r, const struct os_interference *os, struct findings *f)
{
    for (size_t i = 0; i < os->nprocs; i++) {
        const struct os_proc *p = &os->procs[i];
        const struct rank_file *file = p->file;
        double others = others_nccl_all_us(r, file), explained_us = (double)p->explained_ns / 1e3;
        double share = others > 0.0 ? explained_us / others : NAN;
        if (!(share >= FINDING_OS_MIN_SHARE) || named_straggler(f, file))
            continue;
        uint64_t longest = 0;
        const char *by = NULL;
        const struct os_row *worst = NULL;  /* its straggler rows, most affected first */
        for (size_t k = 0; k < os->nrows; k++) {
            const struct os_row *w = &os->rows[k];
            if (w->file != file || !w->straggler || w->first_of_kind)
                continue;
            if (!worst)
                worst = w;
            if (w->preempted_by && w->preempted_ns > longest) {
                longest = w->preempted_ns;
                by = w->preempted_by;
            }
        }
        if (!worst)
            continue;
        struct finding *v = add(f, FINDING_OS, SECTION_OS_INTERFERENCE);
        v->rank = file->nranks ? file->ranks[0] : -1;
        v->file = file;
        v->wait_us = explained_us;
        v->cost_us = explained_us;
        v->share = share > 1.0 ? 1.0 : share;
        v->by = by;
        v->op = report_name(r, worst->op->op);
        v->seq = worst->op->seq;
        v->replay = op_replay(worst->op);
        v->comm = worst->op->comm;
        v->offcpu_us = (double)worst->offcpu_ns / 1e3;
        v->preempted_us = (double)worst->preempted_ns / 1e3;
        v->thread = worst->thread ? worst->thread->comm : NULL;
        v->nccl_thread = worst->thread && worst->thread->nccl;
    }
}

/* A straggler late because its threads were descheduled before its calls
 * (the OS rows of its late instances) says so, with how much of the
 * others' wait that explains. */
static void explain_stragglers(const struct os_interference *os, struct findings *f)
{
    for (size_t i = 0; i < f->n; i++) {
        struct finding *v = &f->v[i];
        if (v->kind != FINDING_STRAGGLER)
            continue;
        uint64_t lost = 0;
        for (size_t k = 0; k < os->nrows; k++) {
            const struct os_row *w = &os->rows[k];
            if (w->file == v->file && w->straggler && !w->first_of_kind && w->op->comm == v->comm)
                lost += w->late_lost_ns < w->wait_ns ? w->late_lost_ns : w->wait_ns;
        }
        double all_waits_us = v->wait_us * (double)v->count;
        if (!lost || all_waits_us <= 0.0 || (double)lost / 1e3 < FINDING_LATE_OS_MIN_SHARE * all_waits_us)
            continue;
        v->late_os_us = (double)lost / 1e3;
        v->late_os_share = v->late_os_us / all_waits_us > 1.0 ? 1.0 : v->late_os_us / all_waits_us;
    }
}

/* One per communicator: its first mismatched instance, the first side
 * that differs from the most common one (or, 1 against 1, the second). */
static void add_mismatches(const struct mismatches *mm, struct findings *f)
{
    for (size_t i = 0; i < mm->ncomms; i++) {
        const struct mismatch_comm *c = &mm->comms[i];
        if (!c->n)
            continue;
        const struct mismatch *m = &mm->v[c->first];
        const struct mismatch_side *s = &m->sides[1];
        struct finding *v = add(f, FINDING_MISMATCH, SECTION_MISMATCHES);
        v->mismatch = m;
        v->comm = m->comm;
        v->seq = m->seq;
        v->replay = m->replay;
        v->nranks = m->nranks;
        v->rank = s->ranks[0];
        v->file = s->file;
        v->op = s->op;
        v->bytes = s->bytes;
        v->count = c->instances;
        v->site = s->site;
    }
}

/* An earlier settings finding of the same variable at the same process:
 * the environment is the process's, so every communicator of its ranks
 * differs alike; one finding says it, with how many more communicators. */
static struct finding *same_env(struct findings *f, const struct setting_diff *d)
{
    for (size_t i = 0; d->env && i < f->n; i++) {
        struct finding *v = &f->v[i];
        if (v->kind == FINDING_SETTINGS && v->setting->env && v->setting->name == d->name &&
            v->file == d->values[1].file)
            return v;
    }
    return NULL;
}

/* One per communicator: its first setting that differs, the first rank
 * of its second most common value named; an environment variable that
 * one finding names already at that process counts there (`of`). */
static void add_settings(const struct settings_drift *sd, struct findings *f)
{
    for (size_t i = 0; i < sd->n;) {
        size_t j = i + 1;
        while (j < sd->n && sd->v[j].comm == sd->v[i].comm)
            j++;
        const struct setting_diff *d = &sd->v[i];
        struct finding *seen = same_env(f, d);
        if (seen) {
            seen->of++;
            i = j;
            continue;
        }
        struct finding *v = add(f, FINDING_SETTINGS, SECTION_SETTINGS);
        v->setting = d;
        v->comm = d->comm;
        v->rank = d->values[1].ranks[0];
        v->file = d->values[1].file;
        v->count = j - i;
        i = j;
    }
}

/* Its tier: mismatches, hangs, settings, then the rest by cost. */
static int tier(const struct finding *x)
{
    return x->kind == FINDING_MISMATCH ? 0 : x->kind == FINDING_HANG ? 1 : x->kind == FINDING_SETTINGS ? 2 : 3;
}

/* Mismatches, hangs, then by cost, descending; equal ones by kind and rank. */
static int cmp_finding(const void *a, const void *b)
{
    const struct finding *x = a, *y = b;
    if (tier(x) != tier(y))
        return tier(x) < tier(y) ? -1 : 1;
    if (x->kind == FINDING_MISMATCH || x->kind == FINDING_SETTINGS)  /* by communicator, as kept */
        return (x->comm > y->comm) - (x->comm < y->comm);
    if (x->cost_us != y->cost_us)
        return x->cost_us > y->cost_us ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

void findings_analyze(const struct report *r, const struct os_interference *os, const struct mismatches *mm,
                      const struct settings_drift *sd, struct findings *out)
{
    memset(out, 0, sizeof *out);
    if (mm) {
        add_mismatches(mm, out);
        out->compared = mm->compared;
    }
    if (sd) {
        add_settings(sd, out);
        out->settings_comms = sd->comms;
    }
    add_hangs(r, out);
    const struct crossrank *x = r->cross;
    if (x && (x->ninstances || x->npairs)) {
        out->records = true;
        out->collectives = x->ninstances;
        out->pairs = x->npairs;
        add_stragglers(r, out);
        add_slow(r, out);
    }
    if (os) {
        add_os(r, os, out);
        explain_stragglers(os, out);
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_finding);
}

void findings_free(struct findings *f)
{
    free(f->v);
    hang_summary_free(&f->hangs);
    memset(f, 0, sizeof *f);
}
