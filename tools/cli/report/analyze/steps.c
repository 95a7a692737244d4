/* Steps (steps.h): the period of a communicator's collectives, where its
 * steps start, each step's figures, and what changed over the steps. */
#include "steps.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "stats/step_pattern.h"

/* The detection looks at a window of the positions (the middle of a long
 * run, past its warm-up): enough for 3 periods of the longest step. */
#define STEPS_WINDOW (4 * STEPS_MAX_PERIOD)
/* A change point needs this many steps on each side, and a rise of this
 * much that stands out of the steps' noise by this t statistic. */
#define STEPS_CHANGE_MIN_SIDE 5
#define STEPS_CHANGE_MIN_RISE 0.2
#define STEPS_CHANGE_MIN_T 8.0
/* ... and that costs the step this share of its median time: on a shared
 * host the waiting for a rank drifts as its CPU does (healthy DDP on 2
 * GPUs: 1.6 -> 2.1 ms in a 6.9 ms step), what a user calls noise. */
#define STEPS_CHANGE_MIN_STEP_SHARE 0.1
/* A rank is late at a position of most steps: the late rank of this share
 * of the steps (of the run from the change point, if any), at one position. */
#define STEPS_LATE_MIN_SHARE 0.5

/* One communicator's collectives in seq order (calls, not replays). */
struct view {
    const struct xr_instance **in;
    size_t n;
    uint32_t *key;                /* (op, size) as a small number */
    double *gap_ns;               /* the host's time since the previous call, median over ranks; NAN unknown */
};

static uint32_t key_of(uint64_t *seen, size_t *nseen, const struct xr_instance *in)
{
    uint64_t k = in->bytes << 8 | in->op;
    for (size_t i = 0; i < *nseen; i++)
        if (seen[i] == k)
            return (uint32_t)i;
    seen[*nseen] = k;
    return (uint32_t)(*nseen)++;
}

/* The most ranks of any of the view's instances. */
static size_t max_members(const struct view *v)
{
    size_t most = 1;
    for (size_t i = 0; i < v->n; i++)
        most = v->in[i]->n > most ? v->in[i]->n : most;
    return most;
}

/* The highest rank among the view's instances. */
static int max_rank(const struct report *r, const struct crossrank *x, const struct view *v)
{
    int maxrank = 0;
    for (size_t i = 0; i < v->n; i++)
        for (size_t k = 0; k < v->in[i]->n; k++) {
            int rank = xr_event(r, x->members[v->in[i]->first + k])->rank;
            maxrank = rank > maxrank ? rank : maxrank;
        }
    return maxrank;
}

/* Each position's gap: per rank, its call's time less its previous call's
 * (each in its own clock: a difference needs no alignment), the median of
 * the ranks'. */
static void gaps(const struct report *r, const struct crossrank *x, struct view *v)
{
    int maxrank = max_rank(r, x, v);
    size_t most = max_members(v);  /* not maxrank + 1: a damaged file may repeat a rank */
    uint64_t *last = xcalloc((size_t)maxrank + 1, sizeof *last);
    double *g = xmalloc(most * sizeof *g);
    for (size_t i = 0; i < v->n; i++) {
        size_t ng = 0;
        for (size_t k = 0; k < v->in[i]->n; k++) {
            const struct op_event *e = xr_event(r, x->members[v->in[i]->first + k]);
            if (e->rank < 0)
                continue;
            if (last[e->rank] && e->enqueue_ns >= last[e->rank])
                g[ng++] = (double)(e->enqueue_ns - last[e->rank]);
            last[e->rank] = e->enqueue_ns;
        }
        v->gap_ns[i] = ng ? xr_median(g, ng) : NAN;
    }
    free(last);
    free(g);
}

static bool view_build(const struct report *r, const struct crossrank *x, size_t c, size_t d, struct view *v)
{
    memset(v, 0, sizeof *v);
    v->in = xmalloc((d - c) * sizeof *v->in);
    for (size_t i = c; i < d; i++)
        if (!x->instances[i].replay)
            v->in[v->n++] = &x->instances[i];
    if (v->n < STEPS_MIN_STEPS)
        return false;
    v->key = xmalloc(v->n * sizeof *v->key);
    v->gap_ns = xmalloc(v->n * sizeof *v->gap_ns);
    uint64_t *seen = xmalloc(v->n * sizeof *seen);
    size_t nseen = 0;
    for (size_t i = 0; i < v->n; i++)
        v->key[i] = key_of(seen, &nseen, v->in[i]);
    free(seen);
    gaps(r, x, v);
    return true;
}

static void view_free(struct view *v)
{
    free(v->in);
    free(v->key);
    free(v->gap_ns);
}

/* The window [*from, *from + *len) the detection looks at. */
static void window(const struct view *v, size_t *from, size_t *len)
{
    *len = v->n < STEPS_WINDOW ? v->n : STEPS_WINDOW;
    *from = (v->n - *len) / 2;
}

/* P0: the shortest period at which the window's keys repeat; 0 none. */
static size_t pattern_period(const struct view *v)
{
    size_t from, len;
    window(v, &from, &len);
    return tap_step_pattern_period(v->key + from, len, STEPS_MAX_PERIOD);
}

/* The step's period and phase from the window's gaps that stand out
 * (stats/step_pattern.h), the phase of the view's calls. */
static bool steps_by_gap(const struct view *v, size_t pattern, size_t *period, size_t *phase)
{
    size_t from, len;
    window(v, &from, &len);
    return tap_step_by_gap(v->key + from, v->gap_ns + from, len, from, pattern, STEPS_MAX_PERIOD, period, phase);
}

/* The member of `in` that is `rank`, or NULL. */
static const struct op_event *event_of(const struct report *r, const struct crossrank *x,
                                       const struct xr_instance *in, int rank)
{
    for (size_t k = 0; k < in->n; k++)
        if (xr_event(r, x->members[in->first + k])->rank == rank)
            return xr_event(r, x->members[in->first + k]);
    return NULL;
}

/* The lowest rank of the communicator whose process marked steps
 * (nccltap_step()), and its file; -1 none. */
static int marking_rank(const struct report *r, const struct crossrank *x, const struct view *v,
                        const struct rank_file **file)
{
    int best = -1;
    const struct xr_instance *in = v->in[0];
    for (size_t k = 0; k < in->n; k++) {
        struct xr_member m = x->members[in->first + k];
        const struct rank_file *f = &r->files[m.file];
        int rank = xr_event(r, m)->rank;
        if (f->nstep_marks >= 2 && (best < 0 || rank < best)) {
            best = rank;
            *file = f;
        }
    }
    return best;
}

/* The marks kept at or before t: the step its call is in (0: before
 * the first kept mark). */
static size_t marks_before(const struct rank_file *f, uint64_t t)
{
    size_t lo = 0, hi = f->nstep_marks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->step_marks[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The phase most regular marked steps start at: of the steps with q
 * collectives, the most common start modulo q, as the first index from
 * `first` with that remainder. A first step with set-up collectives of
 * its own (DDP's broadcasts) must not shift every step after it. */
static size_t marked_phase(const size_t *count, const size_t *start, size_t nsteps, size_t q, size_t first)
{
    size_t *votes = xcalloc(q, sizeof *votes), best = first % q;
    for (size_t k = 0; k < nsteps; k++)
        if (count[k] == q && ++votes[start[k] % q] > votes[best])
            best = start[k] % q;
    free(votes);
    return first + (best + q - first % q) % q;
}

/* Steps at the program's marks: the collectives the marking rank called
 * between two marks are a step, if most marked steps have the same
 * number of them (a multiple of the pattern); they start where most of
 * those steps start (marked_phase). */
static bool steps_by_marks(const struct report *r, const struct crossrank *x, const struct view *v, size_t pattern,
                           size_t *period, size_t *phase, size_t *marked)
{
    const struct rank_file *f = NULL;
    int rank = marking_rank(r, x, v, &f);
    if (rank < 0)
        return false;
    /* count[k - 1]: the collectives after mark k; the last mark's step is
     * the program's, though not whole (a final barrier may follow it). */
    size_t nsteps = f->nstep_marks - 1, first = SIZE_MAX;
    size_t *count = xcalloc(nsteps + 1, sizeof *count), *start = xcalloc(nsteps + 1, sizeof *start);
    for (size_t i = 0; i < v->n; i++) {
        const struct op_event *e = event_of(r, x, v->in[i], rank);
        size_t k = e ? marks_before(f, e->enqueue_ns) : 0;
        if (!k)
            continue;  /* before the first kept mark */
        if (k <= nsteps)
            first = first == SIZE_MAX ? i : first;
        if (!count[k - 1]++)
            start[k - 1] = i;
    }
    double *c = xmalloc(nsteps * sizeof *c);
    for (size_t k = 0; k < nsteps; k++)
        c[k] = (double)count[k];
    size_t q = (size_t)xr_median(c, nsteps), same = 0;
    for (size_t k = 0; k < nsteps; k++)
        same += count[k] == q;
    free(c);
    bool ok = first != SIZE_MAX && q && q <= STEPS_MAX_PERIOD && q % pattern == 0 &&
              (double)same >= TAP_STEP_MIN_REGULAR * (double)nsteps;
    if (ok) {
        *period = q;
        *phase = marked_phase(count, start, nsteps, q, first);
        /* and those whose marks were not kept (the rank file keeps the last ones) */
        *marked = f->steps_marked > f->nstep_marks ? (size_t)(f->steps_marked - f->nstep_marks) : 0;
        for (size_t k = 0; k <= nsteps; k++)
            *marked += count[k] > 0;
    }
    free(count);
    free(start);
    return ok;
}

static bool complete(const struct xr_instance *in)
{
    return in->n >= 2 && (!in->nranks || in->n == (size_t)in->nranks);
}

/* End minus the last arrival: timed, or from the stamps (to the polls'
 * resolution, compared only with other steps measured so). */
static double transfer_ns(const struct xr_instance *in)
{
    if (in->transfer_ns > 0)
        return in->transfer_ns;
    return in->end_ns > in->latest_start_ns ? (double)(in->end_ns - in->latest_start_ns) : 0;
}

/* A time interval of one rank, aligned ns. */
struct span {
    int rank;
    int64_t from, to;
};

static int cmp_span(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->from > y->from) - (x->from < y->from);
}

/* The time spans [i, j) of one rank cover together, ns (sorted by start). */
static double union_ns(const struct span *s, size_t i, size_t j)
{
    double sum = 0;
    while (i < j) {
        int64_t from = s[i].from, to = s[i].to;
        for (i++; i < j && s[i].from <= to; i++)
            to = s[i].to > to ? s[i].to : to;
        sum += (double)(to - from);
    }
    return sum;
}

/* A step's intervals while it is filled: its ranks' collectives and waits,
 * and each collective's transfer (rank 0 for all), each clipped to the
 * step, [from, to): a stamped end is the poll that saw it, which may come
 * after the next step began. A step's figures are the time its intervals
 * cover together: stamped intervals overlap (an op between marks is
 * stamped from the marks around it), and their sums read DDP's 24
 * all-reduces of a 7.6 ms step as 9.4 ms on 4 H200s. */
struct step_spans {
    struct span *comm, *wait, *transfer;
    size_t ncomm, nwait, ntransfer, cap, q;
    int64_t from, to;
};

/* [a, b) of `rank` within the step, appended to s[*n]; nothing when no
 * part of it is. */
static void add_span(const struct step_spans *sp, struct span *s, size_t *n, int rank, int64_t a, int64_t b)
{
    struct span c = { rank, a > sp->from ? a : sp->from, b < sp->to ? b : sp->to };
    if (c.to > c.from)
        s[(*n)++] = c;
}

/* For steps of q collectives of at most `members` ranks each. */
static void spans_init(struct step_spans *sp, size_t q, size_t members)
{
    sp->q = q;
    sp->cap = q * members;
    sp->comm = xmalloc(sp->cap * sizeof *sp->comm);
    sp->wait = xmalloc(sp->cap * sizeof *sp->wait);
    sp->transfer = xmalloc(q * sizeof *sp->transfer);
}

static void spans_clear(struct step_spans *sp, int64_t from, int64_t to)
{
    sp->from = from;
    sp->to = to;
    sp->ncomm = sp->nwait = sp->ntransfer = 0;
}

static void spans_free(struct step_spans *sp)
{
    free(sp->comm);
    free(sp->wait);
    free(sp->transfer);
}

/* The sum over ranks of each rank's union of s[0, n), and the ranks. */
static double ranks_union_ns(struct span *s, size_t n, size_t *ranks)
{
    qsort(s, n, sizeof *s, cmp_span);
    double sum = 0;
    *ranks = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && s[j].rank == s[i].rank; j++)
            ;
        sum += union_ns(s, i, j);
        ++*ranks;
    }
    return sum;
}

/* The step's time in collectives and waiting (each rank's union, the
 * mean over the ranks in it) and transfer (the union of its collectives'). */
static void spans_to_step(struct step_spans *sp, struct step *s)
{
    size_t ranks, unused;
    double comm = ranks_union_ns(sp->comm, sp->ncomm, &ranks);
    double wait = ranks_union_ns(sp->wait, sp->nwait, &unused);
    s->comm_us = ranks ? comm / (double)ranks / 1e3 : 0;
    s->wait_us = ranks ? wait / (double)ranks / 1e3 : 0;
    s->transfer_us = ranks_union_ns(sp->transfer, sp->ntransfer, &unused) / 1e3;
}

/* One instance's share of its step's figures: its ranks' intervals and
 * waits, its transfer, and the waiting its last rank caused. */
static void add_to_step(const struct report *r, const struct crossrank *x, const struct xr_instance *in, size_t pos,
                        struct step *s, struct step_spans *sp, double *caused, double *caused_at,
                        size_t *caused_pos)
{
    for (size_t k = 0; k < in->n && sp->ncomm < sp->cap; k++) {
        struct xr_member m = x->members[in->first + k];
        int rank = xr_event(r, m)->rank;
        int64_t from = xr_start(r, m), to = xr_end(r, m);
        /* stamps' starts and ends are not exact: the wait within the call */
        int64_t until = in->latest_start_ns < to ? in->latest_start_ns : to;
        add_span(sp, sp->comm, &sp->ncomm, rank, from, to);
        add_span(sp, sp->wait, &sp->nwait, rank, from, until);
    }
    double transfer = transfer_ns(in);
    s->transfer_sum_us += transfer / 1e3;
    if (sp->ntransfer < sp->q)
        add_span(sp, sp->transfer, &sp->ntransfer, 0, in->latest_start_ns, in->latest_start_ns + (int64_t)transfer);
    s->timed &= in->all_timed;
    if (in->skew_sure_ns > x->threshold_ns && in->last_rank >= 0) {
        double c = in->others_wait_ns / 1e3;
        caused[in->last_rank] += c;
        if (c > caused_at[in->last_rank]) {
            caused_at[in->last_rank] = c;
            caused_pos[in->last_rank] = pos;
        }
    }
}

static uint64_t step_hash(const struct view *v, size_t i, size_t q)
{
    uint64_t h = 1469598103934665603ull;  /* FNV-1a over the step's keys */
    for (size_t p = 0; p < q; p++)
        h = (h ^ v->key[i + p]) * 1099511628211ull;
    return h;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The most frequent of v[0..n) (n > 0; the smallest of a tie), which
 * this sorts; into *count, unless NULL, how often it occurs. */
static uint64_t mode_u64(uint64_t *v, size_t n, size_t *count)
{
    qsort(v, n, sizeof *v, cmp_u64);
    uint64_t mode = v[0];
    size_t best = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && v[j] == v[i]; j++)
            ;
        if (j - i > best) {
            best = j - i;
            mode = v[i];
        }
    }
    if (count)
        *count = best;
    return mode;
}

/* The first step from `phase` that calls the same collectives as most
 * steps do: every step before it calls others (its hash differs). */
static size_t usual_step(const struct view *v, size_t q, size_t phase, size_t nsteps)
{
    uint64_t *h = xmalloc(nsteps * sizeof *h);
    for (size_t k = 0; k < nsteps; k++)
        h[k] = step_hash(v, phase + k * q, q);
    uint64_t mode = mode_u64(h, nsteps, NULL);
    free(h);
    size_t k = 0;
    while (step_hash(v, phase + k * q, q) != mode)
        k++;
    return phase + k * q;
}

/* The phase past the leading steps unlike the usual one (set-up
 * collectives, a first step of its own: two broadcasts before steps of an
 * all-reduce and an all-gather were a step of two broadcasts), which are
 * then outside the steps. The usual step, not the middle one: one odd
 * step in the middle of the run must not put the first half outside. */
static size_t past_irregular(const struct view *v, size_t q, size_t phase)
{
    size_t nsteps = (v->n - phase) / q;
    if (nsteps < 3)
        return phase;
    return usual_step(v, q, phase, nsteps);
}

/* The figures of each whole step from `phase` on. */
static void fill_steps(const struct report *r, const struct crossrank *x, const struct view *v, size_t phase,
                       struct comm_steps *cs)
{
    size_t q = cs->period;
    cs->nsteps = (v->n - phase) / q;
    cs->steps = xcalloc(cs->nsteps ? cs->nsteps : 1, sizeof *cs->steps);
    size_t nr = (size_t)max_rank(r, x, v) + 1;
    double *caused = xmalloc(nr * sizeof *caused), *caused_at = xmalloc(nr * sizeof *caused_at);
    size_t *caused_pos = xmalloc(nr * sizeof *caused_pos);
    struct step_spans sp;
    spans_init(&sp, q, max_members(v));
    for (size_t k = 0; k < cs->nsteps; k++) {
        struct step *s = &cs->steps[k];
        memset(caused, 0, nr * sizeof *caused);
        memset(caused_at, 0, nr * sizeof *caused_at);
        s->first_seq = v->in[phase + k * q]->seq;
        s->timed = true;
        s->start_ns = v->in[phase + k * q]->earliest_start_ns;
        if (k)
            cs->steps[k - 1].step_us = (double)(s->start_ns - cs->steps[k - 1].start_ns) / 1e3;
        /* The step ends where the next begins; the last, which none
         * bounds, as long as the one before (else unbounded). */
        size_t next = phase + (k + 1) * q;
        int64_t end = next < v->n ? v->in[next]->earliest_start_ns
                      : k ? s->start_ns + (int64_t)(cs->steps[k - 1].step_us * 1e3) : INT64_MAX;
        spans_clear(&sp, s->start_ns, end);
        for (size_t p = 0; p < q; p++) {
            const struct xr_instance *in = v->in[phase + k * q + p];
            if (!complete(in)) {
                s->missing++;
                continue;
            }
            add_to_step(r, x, in, p, s, &sp, caused, caused_at, caused_pos);
        }
        spans_to_step(&sp, s);
        s->late_rank = -1;
        for (size_t rank = 0; rank < nr; rank++)
            if (caused[rank] > 0 && (s->late_rank < 0 || caused[rank] > s->late_us)) {
                s->late_rank = (int)rank;
                s->late_us = caused[rank];
                s->late_pos = caused_pos[rank];
            }
    }
    free(caused);
    free(caused_at);
    free(caused_pos);
    spans_free(&sp);
}

/* The median of field `off` (a double) of steps [from, to) with nothing
 * missing, measured as cs->timed says. */
static double steps_median(const struct comm_steps *cs, size_t from, size_t to, size_t off)
{
    double *v = xmalloc((to - from + 1) * sizeof *v);
    size_t n = 0;
    for (size_t k = from; k < to; k++)
        if (!cs->steps[k].missing && cs->steps[k].timed == cs->timed)
            v[n++] = *(const double *)((const char *)&cs->steps[k] + off);
    double m = n ? xr_median(v, n) : NAN;
    free(v);
    return m;
}

/* The split of series v[0..n), n >= 2 * STEPS_CHANGE_MIN_SIDE, that
 * best separates a lower run from a higher one after it: the largest t
 * statistic of the two means (pooled variance), in *t. */
static size_t best_split(const double *v, size_t n, double *t_out)
{
    double *sum = xcalloc(n + 1, sizeof *sum), *sq = xcalloc(n + 1, sizeof *sq);
    for (size_t i = 0; i < n; i++) {
        sum[i + 1] = sum[i] + v[i];
        sq[i + 1] = sq[i] + v[i] * v[i];
    }
    size_t from = 0;
    *t_out = 0;
    for (size_t s = STEPS_CHANGE_MIN_SIDE; s + STEPS_CHANGE_MIN_SIDE <= n; s++) {
        double n1 = (double)s, n2 = (double)(n - s);
        double m1 = sum[s] / n1, m2 = (sum[n] - sum[s]) / n2;
        double ss = (sq[s] - n1 * m1 * m1) + (sq[n] - sq[s] - n2 * m2 * m2);
        double sd = sqrt(ss > 0 ? ss / (n1 + n2 - 2) : 0);
        double t = sd > 0 ? (m2 - m1) / (sd * sqrt(1 / n1 + 1 / n2)) : (m2 > m1 ? INFINITY : 0);
        if (t > *t_out) {
            *t_out = t;
            from = s;
        }
    }
    free(sum);
    free(sq);
    return from;
}

/* The split of series v[0..n) that best separates a lower run from a
 * higher one after it, if it stands out and the rise holds in the medians. */
static void change_point(const double *v, size_t n, struct step_change *c)
{
    memset(c, 0, sizeof *c);
    if (n < 2 * STEPS_CHANGE_MIN_SIDE)
        return;
    c->from = best_split(v, n, &c->t);
    if (c->t < STEPS_CHANGE_MIN_T)
        return;
    double *a = xmalloc(n * sizeof *a);
    memcpy(a, v, n * sizeof *a);
    c->before_us = xr_median(a, c->from);
    memcpy(a, v + c->from, (n - c->from) * sizeof *a);
    c->after_us = xr_median(a, n - c->from);
    free(a);
    c->found = c->after_us >= (1 + STEPS_CHANGE_MIN_RISE) * c->before_us && c->after_us > 0;
}

/* v[0..n) with each value the median of the 5 around it: a step that one
 * descheduled rank or one late poll made long moves no change point. */
static double *median_of_5(const double *v, size_t n)
{
    double *out = xmalloc((n + 1) * sizeof *out), w[5];
    for (size_t i = 0; i < n; i++) {
        size_t from = i >= 2 ? i - 2 : 0, to = i + 3 < n ? i + 3 : n, k = 0;
        for (size_t j = from; j < to; j++)
            w[k++] = v[j];
        out[i] = xr_median(w, k);
    }
    return out;
}

/* Whether a rise from `before` to `after` (us a step) is told: by
 * STEPS_CHANGE_MIN_RISE, past what stamps resolve (cs->stamp_span_us),
 * and by a tenth of a step. */
static bool rise_told(const struct comm_steps *cs, double before, double after)
{
    double rise = after - before;
    return after >= (1 + STEPS_CHANGE_MIN_RISE) * before && (cs->timed || rise >= cs->stamp_span_us) &&
           !(rise < STEPS_CHANGE_MIN_STEP_SHARE * cs->step_us_median);
}

/* The change point of field `off` over the steps with nothing missing,
 * measured as cs->timed says (from: an index into cs->steps): found on
 * the series' running medians, its rise read from the steps themselves;
 * from stamps, a rise within their resolution (the median span of an
 * end, cs->stamp_span_us) is not told, nor one under a tenth of a step. */
static void steps_change(const struct comm_steps *cs, size_t off, struct step_change *c)
{
    double *v = xmalloc((cs->nsteps + 1) * sizeof *v);
    size_t *at = xmalloc((cs->nsteps + 1) * sizeof *at), n = 0;
    for (size_t k = 0; k < cs->nsteps; k++)
        if (!cs->steps[k].missing && cs->steps[k].timed == cs->timed) {
            at[n] = k;
            v[n++] = *(const double *)((const char *)&cs->steps[k] + off);
        }
    double *smooth = median_of_5(v, n);
    change_point(smooth, n, c);
    if (c->found) {
        c->before_us = xr_median(v, c->from);  /* reorders v: the split is read from `at` only */
        c->after_us = xr_median(v + c->from, n - c->from);
        c->found = rise_told(cs, c->before_us, c->after_us);
    }
    if (c->found)
        c->from = at[c->from];
    free(smooth);
    free(v);
    free(at);
}

/* Whether the steps from `from` on took longer than those before, by a
 * tenth of a step: more waiting on the communicator's stream where its
 * collectives overlap compute (DDP) may cost the step nothing (on 2
 * H200s, a healthy run's waiting rose 2.4 -> 4.1 ms a step at step 11,
 * its steps 7.96 -> 8.49 ms). The last step has no time (step_us 0). */
static bool steps_longer(const struct comm_steps *cs, size_t from)
{
    if (cs->nsteps < 2 || from + 1 >= cs->nsteps)
        return false;
    double before = steps_median(cs, 0, from, offsetof(struct step, step_us));
    double after = steps_median(cs, from, cs->nsteps - 1, offsetof(struct step, step_us));
    return after - before >= STEPS_CHANGE_MIN_STEP_SHARE * cs->step_us_median;
}

/* The median span of the stamped ends of the communicator's collectives,
 * us: what a stamp's time is known to within. */
static double stamp_span_us(const struct report *r, const struct crossrank *x, const struct view *v)
{
    double *s = xmalloc((v->n + 1) * sizeof *s);
    size_t n = 0;
    for (size_t i = 0; i < v->n; i++) {
        const struct op_event *e = xr_event(r, x->members[v->in[i]->first]);
        if (e->flags & OP_STAMPED)
            s[n++] = (double)e->end_span_us;
    }
    double m = n ? xr_median(s, n) : 0;
    free(s);
    return m;
}

/* The transfer time of position p over the steps [from, to) measured
 * as cs->timed says, median, us. */
static double position_transfer(const struct view *v, size_t phase, const struct comm_steps *cs, size_t p,
                                size_t from, size_t to)
{
    double *t = xmalloc((to - from + 1) * sizeof *t);
    size_t n = 0, q = cs->period;
    for (size_t k = from; k < to; k++) {
        const struct xr_instance *in = v->in[phase + k * q + p];
        if (complete(in) && cs->steps[k].timed == cs->timed)
            t[n++] = transfer_ns(in) / 1e3;
    }
    double m = n ? xr_median(t, n) : NAN;
    free(t);
    return m;
}

static double busbw(const struct report *r, const struct step_position *p, int nranks, double us)
{
    return us > 0 && !isnan(us) ? (double)p->bytes * xr_bus_factor(report_name(r, p->op), nranks) / (us * 1e3) : 0;
}

/* The profiler tag of an instance's call: the first of its ranks' that
 * has one (rank_file_tag); 0 none. */
static uint64_t instance_tag(const struct report *r, const struct crossrank *x, const struct xr_instance *in)
{
    for (size_t k = 0; k < in->n; k++) {
        struct xr_member m = x->members[in->first + k];
        uint64_t tag = rank_file_tag(&r->files[m.file], in->comm, xr_event(r, m)->rank, in->seq);
        if (tag)
            return tag;
    }
    return 0;
}

/* The tag position p's calls carry in every step; 0 where they carry
 * none, or differ from step to step (a label that is not the position's). */
static uint64_t position_tag(const struct report *r, const struct crossrank *x, const struct view *v, size_t phase,
                             const struct comm_steps *cs, size_t p)
{
    uint64_t tag = instance_tag(r, x, v->in[phase + p]);
    for (size_t k = 1; tag && k < cs->nsteps; k++)
        if (instance_tag(r, x, v->in[phase + k * cs->period + p]) != tag)
            return 0;
    return tag;
}

/* Each position's transfer before and after the change point (all
 * steps before, where none), its tag, and the position that rose most. */
static void fill_positions(const struct report *r, const struct crossrank *x, const struct view *v, size_t phase,
                           struct comm_steps *cs)
{
    size_t q = cs->period, split = cs->slower.found ? cs->slower.from : cs->nsteps;
    cs->positions = xcalloc(q, sizeof *cs->positions);
    double rise = -INFINITY;
    for (size_t p = 0; p < q; p++) {
        struct step_position *sp = &cs->positions[p];
        sp->op = v->in[phase + p]->op;
        sp->bytes = v->in[phase + p]->bytes;
        sp->tag = position_tag(r, x, v, phase, cs, p);
        sp->transfer_before_us = position_transfer(v, phase, cs, p, 0, split);
        sp->transfer_after_us = split < cs->nsteps ? position_transfer(v, phase, cs, p, split, cs->nsteps) : NAN;
        sp->busbw_before_gbs = busbw(r, sp, cs->nranks, sp->transfer_before_us);
        sp->busbw_after_gbs = busbw(r, sp, cs->nranks, sp->transfer_after_us);
        if (cs->slower.found && sp->transfer_after_us - sp->transfer_before_us > rise) {
            rise = sp->transfer_after_us - sp->transfer_before_us;
            cs->slower.pos = p;
        }
    }
}

/* The rank late at one position in most steps of the run from `from`:
 * the most frequent (late rank, position) of the steps. */
static void find_late(const struct comm_steps *cs, size_t from, struct step_late *l)
{
    memset(l, 0, sizeof *l);
    l->rank = -1;
    size_t n = cs->nsteps - from, nk = 0, best = 0;
    uint64_t *k = xmalloc((n + 1) * sizeof *k), mode = 0;
    for (size_t i = from; i < cs->nsteps; i++)
        if (cs->steps[i].late_rank >= 0)
            k[nk++] = (uint64_t)cs->steps[i].late_rank << 32 | (uint32_t)cs->steps[i].late_pos;
    if (nk)
        mode = mode_u64(k, nk, &best);
    free(k);
    if (!n || (double)best < STEPS_LATE_MIN_SHARE * (double)n)
        return;
    l->rank = (int)(mode >> 32);
    l->pos = (size_t)(uint32_t)mode;
    double *w = xmalloc(best * sizeof *w);
    size_t nw = 0;
    for (size_t i = from; i < cs->nsteps; i++)
        if (cs->steps[i].late_rank == l->rank && cs->steps[i].late_pos == l->pos)
            w[nw++] = cs->steps[i].late_us;
    l->steps = best;
    l->wait_us_median = xr_median(w, nw);
    l->from = from;
    free(w);
}

/* Where one rank is late since the waiting rose, the step it became late
 * from: the change point of the wait it caused (0 in a step where
 * another rank was the late one), within STEPS_CHANGE_MIN_SIDE steps of
 * the waiting's, where that wait rose there (its t at least
 * STEPS_CHANGE_MIN_T: a rank late throughout says nothing of when the
 * waiting rose) and the waiting's rise is told from there as from the
 * waiting's own split, with the same late rank. Another rank late for
 * real for a step or two just before (descheduled) raises the waiting's
 * running median, not this series: 4 simulated ranks on 2 CPUs, rank 0
 * late 3 ms at steps 46 and 48, put the waiting's change at step 48
 * where rank 2 was late from 50. */
static void late_since(struct comm_steps *cs)
{
    struct step_change *w = &cs->waiting;
    const size_t reach = STEPS_CHANGE_MIN_SIDE, pad = STEPS_CHANGE_MIN_SIDE;
    if (!w->found || cs->late.rank < 0)
        return;
    /* Splits keep `pad` steps on each side: they reach `reach` either way. */
    size_t lo = w->from > reach + pad ? w->from - reach - pad : 0;
    size_t hi = w->from + reach + pad < cs->nsteps ? w->from + reach + pad : cs->nsteps;
    if (hi - lo < 2 * pad)
        return;
    /* Of the steps measured alike only (a missing one is no step where
     * the rank was on time), each one's index in `at`. */
    double *caused = xmalloc((hi - lo) * sizeof *caused), t = 0;
    size_t *at = xmalloc((hi - lo) * sizeof *at), n = 0;
    for (size_t k = lo; k < hi; k++) {
        const struct step *st = &cs->steps[k];
        if (st->missing || st->timed != cs->timed)
            continue;
        bool its = st->late_rank == cs->late.rank && st->late_pos == cs->late.pos;
        caused[n] = its ? st->late_us : 0;
        at[n++] = k;
    }
    size_t from = n >= 2 * pad ? at[best_split(caused, n, &t)] : w->from;
    free(caused);
    free(at);
    if (t < STEPS_CHANGE_MIN_T || from == w->from)
        return;
    double before = steps_median(cs, 0, from, offsetof(struct step, wait_us));
    double after = steps_median(cs, from, cs->nsteps, offsetof(struct step, wait_us));
    struct step_late late;
    find_late(cs, from, &late);
    if (isnan(before) || isnan(after) || !rise_told(cs, before, after) || !steps_longer(cs, from) ||
        late.rank != cs->late.rank || late.pos != cs->late.pos)
        return;
    w->from = from;
    w->t = t;
    w->before_us = before;
    w->after_us = after;
    cs->late = late;
}

/* One communicator, x->instances[c .. d): false when it has no steps. */
static bool comm_steps(const struct report *r, const struct crossrank *x, size_t c, size_t d, struct comm_steps *cs)
{
    struct view v;
    memset(cs, 0, sizeof *cs);
    bool ok = view_build(r, x, c, d, &v);
    size_t pattern = ok ? pattern_period(&v) : 0, period = 0, phase = 0;
    ok = pattern > 0;
    if (ok) {
        cs->by_marks = steps_by_marks(r, x, &v, pattern, &period, &phase, &cs->marked);
        cs->by_gap = !cs->by_marks && steps_by_gap(&v, pattern, &period, &phase);
        if (!cs->by_marks && !cs->by_gap) {
            period = pattern;
            phase = pattern >= 2 ? tap_step_phase_of_longest_gap(v.gap_ns, v.n, period) : 0;
            ok = pattern >= 2;
        }
    }
    if (ok)
        phase = past_irregular(&v, period, phase);
    if (ok && (v.n - phase) / period < STEPS_MIN_STEPS)
        ok = false;
    if (!ok) {
        view_free(&v);
        return false;
    }
    cs->comm = x->instances[c].comm;
    cs->nranks = x->instances[c].nranks;
    cs->pattern = pattern;
    cs->period = period;
    cs->first_seq = v.in[phase]->seq;
    fill_steps(r, x, &v, phase, cs);
    cs->before = phase;
    cs->after = v.n - phase - cs->nsteps * period;
    size_t timed = 0;
    for (size_t k = 0; k < cs->nsteps; k++)
        timed += cs->steps[k].timed;
    cs->timed = 2 * timed > cs->nsteps;
    cs->stamp_span_us = stamp_span_us(r, x, &v);
    cs->step_us_median = steps_median(cs, 0, cs->nsteps - 1, offsetof(struct step, step_us));
    cs->comm_us_median = steps_median(cs, 0, cs->nsteps, offsetof(struct step, comm_us));
    cs->wait_us_median = steps_median(cs, 0, cs->nsteps, offsetof(struct step, wait_us));
    cs->transfer_us_median = steps_median(cs, 0, cs->nsteps, offsetof(struct step, transfer_us));
    steps_change(cs, offsetof(struct step, transfer_us), &cs->slower);
    /* From stamps a collective's transfer is its end's span and more, and
     * a queued op's start may be its call: where the mean transfer of a
     * collective is within that span, or a step's transfers sum to more
     * than the step (a communicator's collectives run one after another),
     * the series shows the polls, not the links (DDP's 4 MiB all-reduces
     * of 45 us, polls every 1 ms, 2 H200s: "transfer" 24.7 -> 41.3 ms a
     * step in 7 ms steps). */
    double transfer_sum_us = steps_median(cs, 0, cs->nsteps, offsetof(struct step, transfer_sum_us));
    if (!cs->timed && (transfer_sum_us / (double)cs->period <= cs->stamp_span_us ||
                       !(transfer_sum_us < cs->step_us_median)))
        cs->slower.found = false;
    steps_change(cs, offsetof(struct step, wait_us), &cs->waiting);
    if (cs->waiting.found && !steps_longer(cs, cs->waiting.from))
        cs->waiting.found = false;
    fill_positions(r, x, &v, phase, cs);
    find_late(cs, cs->waiting.found ? cs->waiting.from : 0, &cs->late);
    late_since(cs);
    view_free(&v);
    return true;
}

void steps_analyze(const struct report *r, const struct crossrank *x, struct steps *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    for (size_t c = 0; c < x->ninstances;) {
        size_t d = c;
        while (d < x->ninstances && x->instances[d].comm == x->instances[c].comm)
            d++;
        if (out->ncomms == cap)
            out->comms = xrealloc(out->comms, (cap = cap ? 2 * cap : 4) * sizeof *out->comms);
        if (comm_steps(r, x, c, d, &out->comms[out->ncomms]))
            out->ncomms++;
        else
            out->without++;
        c = d;
    }
}

void steps_free(struct steps *s)
{
    for (size_t i = 0; i < s->ncomms; i++) {
        free(s->comms[i].positions);
        free(s->comms[i].steps);
    }
    free(s->comms);
    memset(s, 0, sizeof *s);
}
