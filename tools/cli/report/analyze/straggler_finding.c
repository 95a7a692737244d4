/* STRAGGLER findings (straggler_finding.h): a straggler is a finding by
 * what it cost, not by how often it was last (a real one is late at the
 * first collective after its own work, and on time at the rest of the
 * step); the others' wait for it is its cost. A straggler late because
 * its threads were descheduled before its calls says so, with how much of
 * the others' wait that explains. */
#include "straggler_finding.h"
#include "steps.h"
#include "crossrank_base.h"
#include "finding.h"
#include "merge.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

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

/* A straggler is a finding where the waiting it caused is a material
 * share of the others' NCCL time and not nothing in their wall time (a
 * job stopped by a hang has little NCCL time), most of the waiting at its
 * communicator is its doing, standing out from the rest, and it was last more often than
 * chance (and it is listed: late XR_STRAGGLER_MIN_LAST times or more). */
#define FINDING_STRAGGLER_MIN_NCCL_SHARE 0.1
#define FINDING_STRAGGLER_MIN_WALL_SHARE 0.01
/* ... and, where its communicator has steps, a material share of the
 * others' time in them (their number times the median step, for each
 * other rank). Where collectives overlap compute (DDP), NCCL time is
 * mostly waiting and a host 5% slower than its peer costs it a share of
 * it: on 2 H200s healthy DDP ranks' backward passes differed by 4-8%
 * without nccltap in most runs (up to 57% in one), and a user's question
 * is what the step lost. */
#define FINDING_STRAGGLER_MIN_STEP_SHARE 0.1
#define FINDING_STRAGGLER_MIN_CAUSED_SHARE 0.5
/* ... and it stands out: at least this many times what any other rank of
 * its communicator caused. Ranks that arrive in turn (jitter; 2 ranks
 * whose arrivals are a coin toss) each cause about as much. */
#define FINDING_STRAGGLER_MIN_LEAD 2.0
/* ... and it is last more often than chance makes a rank last: of the L
 * collectives of its communicator that some rank started last (beyond
 * the threshold, where the records tell), or of the L heaviest of them
 * (XR_HEAVY_SHARE: those that made most of the waiting), so often that a
 * rank last at random (binomial, p = 1/n) would be so with at most this
 * probability. A short run's ranks descheduled in turn on a busy host
 * each cause a burst of waiting, and 3 bursts may make most of a short
 * run's waiting (one rank's all 3 by chance: 1.6% with 4 ranks, so the
 * exact tail, not a normal approximation, is what small counts need); a
 * rank slower than the others is last again and again: at every
 * collective (a few bursts of another rank's may then be the heaviest),
 * or at the first of each step, by far the most (the others' jitter then
 * last as often). Not 1e-3: on a quiet 2-CPU host whose 4 simulated
 * ranks and LTTng's daemons share the CPUs, one rank took all 5 of a 20
 * ms run's heaviest bursts (the scheduler puts the same rank behind the
 * same neighbour: the bursts are not independent), 1e-3 by chance; at
 * 1e-4 one rank needs 7 of 7 with 4 ranks, 14 of 14 with 2. Every
 * injected straggler on 2 and 4 H200s passes it with the same finding. */
#define FINDING_STRAGGLER_MAX_CHANCE 1e-4

/* ... and, where it was last at few of its communicator's collectives
 * told (under this share: a few bursts, not a rank late again and
 * again), its bursts dwarf a collective: the others' mean wait where it
 * was last at least this many times the median time of its own calls of
 * its communicator (its per-op records). Ranks of a
 * healthy job descheduled now and then on a busy host arrive a few
 * collectives' time late (100 us where a 1 MiB all-reduce took 30 us,
 * 7 times in 49, all one rank's, on a quiet 2-CPU host running 4
 * simulated ranks: beyond chance, since the scheduler makes the same rank
 * late again); a host that stalls is late by milliseconds (20 ms every
 * 7th collective on the simulator; 50 ms every 5th step of DDP on 2
 * H200s, whose all-reduces took 45 us). */
#define FINDING_STRAGGLER_FEW_LAST 0.2
#define FINDING_STRAGGLER_MIN_BURST 10.0

/* The median time of s's own calls of its communicator (its per-op
 * records: where it is not late, the collective's own time), us; NaN
 * where it has none. */
static double typical_call_us(const struct report *r, const struct xr_straggler *s)
{
    const struct rank_file *f = &r->files[s->file];
    double *v = xmalloc((f->nevents ? f->nevents : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < f->nevents; i++) {
        const struct op_event *e = &f->events[i];
        if (e->comm == s->comm && e->rank == s->rank && e->end_ns > e->start_ns)
            v[n++] = (double)(e->end_ns - e->start_ns) / 1e3;
    }
    double m = n ? xr_median(v, n) : NAN;
    free(v);
    return m;
}

/* Whether s's lateness is a straggler's, not a few descheduled moments
 * (FINDING_STRAGGLER_FEW_LAST, FINDING_STRAGGLER_MIN_BURST). */
static bool late_enough(const struct report *r, const struct xr_straggler *s)
{
    if (!s->decided || (double)s->last >= FINDING_STRAGGLER_FEW_LAST * (double)s->decided)
        return true;
    double call = typical_call_us(r, s);
    return !(call > 0) || s->wait_us_mean >= FINDING_STRAGGLER_MIN_BURST * call;
}

/* The size of s's communicator, from its process's entry; 0 unknown. */
static int comm_size(const struct report *r, const struct xr_straggler *s)
{
    const struct rank_file *f = &r->files[s->file];
    for (size_t k = 0; k < f->ncomms; k++)
        if (strtoull(f->comms[k].id, NULL, 16) == s->comm)
            return f->comms[k].nranks;
    return 0;
}

/* Whether `last` of `all` is beyond chance for a rank of n: the
 * binomial upper tail P(X >= last), X ~ B(all, 1/n), at most
 * FINDING_STRAGGLER_MAX_CHANCE (summed in logs: `all` may be thousands). */
static bool beyond_chance(size_t last, size_t all, int n)
{
    if (last == 0 || last > all)
        return false;
    double lp = log(1.0 / n), lq = log1p(-1.0 / n), l = (double)all, tail = 0;
    for (size_t k = last; k <= all; k++) {
        double x = (double)k;
        double term = exp(lgamma(l + 1) - lgamma(x + 1) - lgamma(l - x + 1) + x * lp + (l - x) * lq);
        tail += term;
        if (tail > FINDING_STRAGGLER_MAX_CHANCE)
            return false;
        if (term < tail * 1e-12)
            break;  /* the terms fall from here on: the rest is nothing */
    }
    return true;
}

/* Whether s was last more often than chance (FINDING_STRAGGLER_MAX_CHANCE). */
static bool last_beyond_chance(const struct report *r, const struct xr_straggler *s)
{
    int n = comm_size(r, s);
    if (n < 2)
        return true;  /* not known: the cost alone judges */
    return beyond_chance(s->last, s->late_all, n) || beyond_chance(s->last_heavy, s->heavy_all, n);
}

/* Its threads' loss to the OS before its calls at its late instances of
 * its communicator (the OS rows), each instance's at most the others'
 * wait there, ns. */
static uint64_t lost_late_ns(const struct os_interference *os, const struct finding *v)
{
    uint64_t lost = 0;
    for (size_t k = 0; k < os->nrows; k++) {
        const struct os_row *w = &os->rows[k];
        if (w->file == v->file && w->straggler && !w->first_of_kind && w->op->comm == v->comm)
            lost += w->late_lost_ns < w->wait_ns ? w->late_lost_ns : w->wait_ns;
    }
    return lost;
}

/* What the OS explains of v's lateness, where it is material
 * (FINDING_LATE_OS_MIN_SHARE). */
static void explain_by_os(const struct os_interference *os, struct finding *v)
{
    struct straggler_evidence *e = &v->evidence.straggler;
    uint64_t lost = lost_late_ns(os, v);
    double all_waits_us = e->wait_us_mean * (double)e->last;
    if (!lost || all_waits_us <= 0.0 || (double)lost / 1e3 < FINDING_LATE_OS_MIN_SHARE * all_waits_us)
        return;
    e->late_os_us = (double)lost / 1e3;
    e->late_os_share = e->late_os_us / all_waits_us > 1.0 ? 1.0 : e->late_os_us / all_waits_us;
}

/* The others' time in the steps of s's communicator, us: NaN where it
 * has none. */
static double others_steps_us(const struct steps *st, const struct xr_straggler *s)
{
    for (size_t i = 0; st && i < st->ncomms; i++) {
        const struct comm_steps *c = &st->comms[i];
        if (c->comm == s->comm && c->nsteps && c->step_us_median > 0 && c->nranks > 1)
            return (double)c->nsteps * c->step_us_median * (double)(c->nranks - 1);
    }
    return NAN;
}

/* s's communicator's steps, where s is their usual late rank (late at
 * one position of most steps); NULL otherwise. */
static const struct comm_steps *usual_late(const struct steps *st, const struct xr_straggler *s)
{
    for (size_t i = 0; st && i < st->ncomms; i++)
        if (st->comms[i].comm == s->comm && st->comms[i].late.rank == s->rank)
            return &st->comms[i];
    return NULL;
}

void straggler_findings(const struct finding_sources *in, struct findings *out)
{
    const struct report *r = in->r;
    if (!out->records)
        return;
    const struct crossrank *x = r->cross;
    for (size_t i = 0; i < x->nstragglers; i++) {
        const struct xr_straggler *s = &x->stragglers[i];
        double wall, others = others_nccl_us(r, s, &wall);
        double share = others > 0 ? s->caused_us_total / others : NAN;
        if (s->caused_share < FINDING_STRAGGLER_MIN_CAUSED_SHARE ||
            s->caused_us_total < FINDING_STRAGGLER_MIN_LEAD * s->next_us_total ||
            !(share >= FINDING_STRAGGLER_MIN_NCCL_SHARE) ||
            s->caused_us_total < FINDING_STRAGGLER_MIN_WALL_SHARE * wall ||
            s->caused_us_total < FINDING_STRAGGLER_MIN_STEP_SHARE * others_steps_us(in->steps, s) ||
            !last_beyond_chance(r, s) || !late_enough(r, s))
            continue;
        struct finding *v = finding_add(out, FINDING_STRAGGLER, SECTION_STRAGGLERS);
        v->rank = s->rank;
        v->file = &r->files[s->file];
        v->comm = s->comm;
        v->op = report_name(r, s->op);
        v->seq = s->nworst ? s->worst_seq[0] : 0;
        v->replay = s->nworst ? s->worst_replay[0] : 0;
        v->cost_us = s->caused_us_total;
        v->evidence.straggler = (struct straggler_evidence){
            .last = s->last,
            .told = s->decided,
            .wait_us_mean = s->wait_us_mean,
            .share = share > 1 ? 1 : share,  /* estimates of the waits and of NCCL time may cross */
            .measured = s->measured,
            .calls = s->calls,
            .gap_late_us = s->gap_late_us,
            .gap_other_us = s->gap_other_us,
        };
        v->evidence.straggler.steps = usual_late(in->steps, s);
        if (in->os)
            explain_by_os(in->os, v);
    }
}
