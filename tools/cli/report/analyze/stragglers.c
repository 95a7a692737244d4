/* Stragglers: per communicator, who made the others wait and how long.
 * At each instance whose skew can be told, every rank's wait is the latest
 * start minus its own (less what stamps' spans allow), and the waits are
 * caused by the rank that started last. A rank is a straggler by the
 * waiting it caused, whatever share of the collectives it was last in: a
 * real one is late at the first collective after its own work (compute,
 * data loading) and on time at the rest of the step.
 * A communicator's first complete instance is left out: its skew is how
 * much later one rank finished starting up and initialising (NCCL also
 * connects lazily there), not a rank late at its work, the same reason
 * a row's first timed call is kept apart (first_us). */
#include "stragglers.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* What one rank of the communicator being looked at gathers. */
struct rank_acc {
    struct xr_straggler s;
    struct xr_wait w;
    double own_us, caused_us;   /* its waits and those it caused, over every call */
    double late_mean_us;        /* the others' mean wait, summed over the instances it was last in */
    /* Of the op being summed (find_in_op): its waits and those it caused
     * at the instances told, and at the timed ones as small as the rest. */
    double told_own, told_caused, small_own;
    double like_caused;  /* caused at the instances told no more skewed than the untold may be */
};

static void note_op(struct xr_straggler *s, uint8_t op, double caused_us)
{
    size_t i = 0;
    while (i < s->nops && s->ops[i] != op)
        i++;
    if (i == s->nops) {
        if (s->nops == sizeof s->ops)
            return;
        s->ops[s->nops++] = op;
    }
    s->ops_caused_us[i] += caused_us;
}

/* The others' waits at its late instances of `op`, measured. */
static double caused_by(const struct xr_straggler *s, uint8_t op)
{
    for (size_t i = 0; i < s->nops; i++)
        if (s->ops[i] == op)
            return s->ops_caused_us[i];
    return 0;
}

static int cmp_straggler(const void *a, const void *b)
{
    const struct xr_straggler *x = a, *y = b;
    return (x->caused_us_total < y->caused_us_total) - (x->caused_us_total > y->caused_us_total);
}

/* An instance counts when every rank of its communicator recorded it: with
 * one missing, the last to arrive may be the one not seen. */
static bool complete(const struct xr_instance *in)
{
    return in->n >= 2 && (!in->nranks || in->n == (size_t)in->nranks);
}

/* The complete instances of one communicator, x->instances[c .. d), after
 * its first: the ones whose skew says who was late at work. */
static size_t after_first_complete(const struct crossrank *x, size_t c, size_t d)
{
    while (c < d && !complete(&x->instances[c]))
        c++;
    return c < d ? c + 1 : d;
}

/* Whether who started last at `in` can be told: the last rank was last
 * beyond what the stamps' spans allow (*late), or nobody could have been
 * (the skew may be as much larger as it may be smaller). */
static bool told(const struct crossrank *x, const struct xr_instance *in, bool *late)
{
    double doubt = in->skew_ns - in->skew_sure_ns;
    *late = in->skew_sure_ns > x->threshold_ns;
    return *late || in->skew_ns + doubt <= x->threshold_ns;
}

/* Where a start most likely is, ns after its recorded start: a start
 * taken at the call lies in [start, start + span], the middle of a span
 * is recorded as it is, a timed start is exact. */
static double start_center(const struct report *r, struct xr_member m)
{
    const struct op_event *e = xr_event(r, m);
    return (double)xr_start(r, m) + (e->flags & OP_START_AT_CALL ? 0.5 * xr_start_err_up(r, m) : 0);
}

/* A member's wait at `in`, us: the latest start minus its own. Where the
 * last rank is sure (late), from the starts' likeliest places: unbiased,
 * as a stamp's start is as likely early as late. Elsewhere, less what the
 * two starts' spans allow: there the latest start is the largest of
 * several stamps' errors, and a skew within them is no wait. */
static double wait_at(const struct report *r, const struct crossrank *x, const struct xr_instance *in,
                      struct xr_member m)
{
    double w;
    if (in->skew_sure_ns > x->threshold_ns) {
        struct xr_member last = { in->last_file, 0 };
        for (size_t k = 0; k < in->n; k++)
            if (x->members[in->first + k].file == in->last_file &&
                xr_event(r, x->members[in->first + k])->rank == in->last_rank)
                last = x->members[in->first + k];
        w = start_center(r, last) - start_center(r, m);
    } else {
        double slack = in->last_err_down_ns + xr_start_err_up(r, m);
        w = (double)(in->latest_start_ns - xr_start(r, m)) - slack;
    }
    return w > 0 ? w / 1e3 : 0;
}

/* The others' summed wait at `in`: what its last rank caused there. */
static double caused_at(const struct report *r, const struct crossrank *x, const struct xr_instance *in)
{
    double sum = 0;
    for (size_t k = 0; k < in->n; k++)
        sum += wait_at(r, x, in, x->members[in->first + k]);
    return sum;
}

/* The executions of `op` by `rank` of `comm`, from its process's rows:
 * every call, recorded or not; a captured call once per graph launch. */
static uint64_t op_calls(const struct report *r, uint32_t file, uint64_t comm, int rank, const char *op)
{
    const struct rank_file *f = &r->files[file];
    uint64_t calls = 0;
    for (size_t i = 0; i < f->nops; i++) {
        const struct op_row *o = &f->ops[i];
        if (o->rank == rank && strtoull(o->comm, NULL, 16) == comm && !strcmp(o->op, op))
            calls += o->calls - o->captured + o->executions;
    }
    return calls;
}

/* The late instances of one communicator: who was last, what it caused. */
struct late {
    int rank;
    double caused_us;
};
struct lates {
    struct late *v;
    size_t n, cap;
};

static void push_late(struct lates *l, int rank, double caused_us)
{
    if (l->n == l->cap)
        l->v = xrealloc(l->v, (l->cap = l->cap ? 2 * l->cap : 64) * sizeof *l->v);
    l->v[l->n++] = (struct late){ rank, caused_us };
}

static int cmp_late_desc(const void *a, const void *b)
{
    const struct late *x = a, *y = b;
    return (x->caused_us < y->caused_us) - (x->caused_us > y->caused_us);
}

/* Counts, per rank, the heaviest late instances that together caused
 * XR_HEAVY_SHARE of the waiting at them (xr_straggler.last_heavy and
 * heavy_all): who is last when it matters, not at every few-us jitter. */
static void count_heavy(struct lates *l, struct rank_acc *acc, int maxrank)
{
    double total = 0, sum = 0;
    size_t n = 0;
    if (l->n)
        qsort(l->v, l->n, sizeof *l->v, cmp_late_desc);
    for (size_t i = 0; i < l->n; i++)
        total += l->v[i].caused_us;
    while (n < l->n && sum < XR_HEAVY_SHARE * total) {
        sum += l->v[n].caused_us;
        acc[l->v[n++].rank].s.last_heavy++;
    }
    for (int rank = 0; rank <= maxrank; rank++) {
        acc[rank].s.heavy_all = n;
        acc[rank].s.late_all = l->n;
    }
}

/* Adds one instance told to the ranks' sums (a late one also to *lates). */
static void add_instance(const struct report *r, const struct crossrank *x, const struct xr_instance *in,
                         bool late, struct rank_acc *acc, struct lates *lates)
{
    double caused = caused_at(r, x, in);
    for (size_t k = 0; k < in->n; k++) {
        struct xr_member m = x->members[in->first + k];
        struct rank_acc *a = &acc[xr_event(r, m)->rank];
        double w = wait_at(r, x, in, m);
        a->s.decided++;
        a->w.decided++;
        a->told_own += w;
        a->told_caused += a == &acc[in->last_rank] ? caused : 0;
        a->w.wait_us_max = w > a->w.wait_us_max ? w : a->w.wait_us_max;
    }
    if (!late)
        return;
    struct xr_straggler *s = &acc[in->last_rank].s;
    double mean = in->n > 1 ? caused / (double)(in->n - 1) : 0;
    s->last++;
    push_late(lates, in->last_rank, caused);
    acc[in->last_rank].late_mean_us += mean;
    xr_keep_worst(s->worst_seq, s->worst_replay, s->worst_us, &s->nworst, in->seq, in->replay, mean, true);
    note_op(s, in->op, caused);
}

/* The member of `in` that is `rank`, NULL if it has none. */
static const struct xr_member *member_of(const struct report *r, const struct crossrank *x,
                                         const struct xr_instance *in, int rank)
{
    for (size_t k = 0; k < in->n; k++)
        if (xr_event(r, x->members[in->first + k])->rank == rank)
            return &x->members[in->first + k];
    return NULL;
}

/* Where and by how much straggler s was late, over x->instances[from .. d)
 * (c: the communicator's first): its median caused wait at an instance it
 * was last in, and the gaps before its late and its other collectives. */
static void describe(const struct report *r, const struct crossrank *x, size_t c, size_t from, size_t d,
                     struct xr_straggler *s)
{
    double *waits = xmalloc((d - c) * sizeof *waits), *late_gaps = xmalloc((d - c) * sizeof *late_gaps);
    double *other_gaps = xmalloc((d - c) * sizeof *other_gaps);
    size_t nwaits = 0, nlate = 0, nother = 0;
    int64_t prev_end = 0;
    bool have_prev = false;
    for (size_t i = c; i < d; i++) {
        const struct xr_instance *in = &x->instances[i];
        const struct xr_member *m = member_of(r, x, in, s->rank);
        if (!m)
            continue;
        double gap = have_prev ? (double)(xr_start(r, *m) - prev_end) / 1e3 : 0;
        prev_end = xr_end(r, *m);
        bool was_prev = have_prev;
        have_prev = true;
        bool late;
        if (i < from || !complete(in) || !told(x, in, &late) || !was_prev)
            continue;
        bool mine = late && in->last_rank == s->rank;
        if (mine)
            waits[nwaits++] = caused_at(r, x, in) / (double)(in->n - 1);
        if (mine)
            late_gaps[nlate++] = gap;
        else
            other_gaps[nother++] = gap;
    }
    s->wait_us_median = xr_median(waits, nwaits);
    s->gap_late_us = xr_median(late_gaps, nlate);
    s->gap_other_us = xr_median(other_gaps, nother);
    free(waits);
    free(late_gaps);
    free(other_gaps);
}

static void push_wait(struct crossrank *x, size_t *cap, const struct xr_wait *w)
{
    if (x->nwaits == *cap)
        x->waits = xrealloc(x->waits, (*cap = *cap ? 2 * *cap : 64) * sizeof *x->waits);
    x->waits[x->nwaits++] = *w;
}

static void push_straggler(struct crossrank *x, size_t *cap, const struct xr_straggler *s)
{
    if (x->nstragglers == *cap)
        x->stragglers = xrealloc(x->stragglers, (*cap = *cap ? 2 * *cap : 8) * sizeof *x->stragglers);
    x->stragglers[x->nstragglers++] = *s;
}

/* The highest rank of the communicator's instances [c, d). */
static int max_rank(const struct report *r, const struct crossrank *x, size_t c, size_t d)
{
    int maxrank = 0;
    for (size_t i = c; i < d; i++)
        for (size_t k = 0; k < x->instances[i].n; k++) {
            int rank = xr_event(r, x->members[x->instances[i].first + k])->rank;
            maxrank = rank > maxrank ? rank : maxrank;
        }
    return maxrank;
}

/* Sums the waits at `op`'s instances of the communicator, [from, d), into
 * acc[].own_us and caused_us, over all its calls: measured at the
 * instances told; at the others (stamps whose spans hide who was last,
 * small skews all), each rank's own wait at the mean of the timed
 * instances no more skewed than they, caused as at the instances told
 * that are no more skewed than the untold may be, in proportion (a few
 * timed instances would hand all of it to whoever was last in them; and
 * the untold hide only skews within their stamps' spans: a rank held up
 * once, 14 ms at 3 instances told, took 57% of the waiting imputed to
 * 437 untold instances when every told instance counted, and hid the
 * straggler late at all of them); calls not recorded (sampled modes) at
 * the mean of those recorded. Per op, since one op may be late and the
 * next not: a sample's mix of ops is not the run's. Returns the op's
 * calls. */
static uint64_t find_in_op(const struct report *r, const struct crossrank *x, size_t from, size_t d, uint8_t op,
                           struct rank_acc *acc, int maxrank, struct lates *lates)
{
    size_t untold = 0, told_n = 0, small = 0;
    double *reach = xmalloc((d - from) * sizeof *reach);
    for (int rank = 0; rank <= maxrank; rank++)
        acc[rank].told_own = acc[rank].told_caused = acc[rank].small_own = acc[rank].like_caused = 0;
    for (size_t i = from; i < d; i++) {
        const struct xr_instance *in = &x->instances[i];
        if (in->op != op || !complete(in))
            continue;
        for (size_t k = 0; k < in->n; k++) {
            struct xr_member m = x->members[in->first + k];
            struct rank_acc *a = &acc[xr_event(r, m)->rank];
            a->s.instances++;
            a->w.instances++;
            a->s.file = a->w.file = m.file;
        }
        bool late;
        if (told(x, in, &late)) {
            told_n++;
            add_instance(r, x, in, late, acc, lates);
        } else {
            reach[untold++] = 2 * in->skew_ns - in->skew_sure_ns;  /* skew plus doubt */
        }
    }
    /* The instances like the untold: no more skewed than the median
     * untold one may be (the largest would take in the late ones too);
     * the timed ones' waits, the told ones' waiting caused. */
    double bound = xr_median(reach, untold);
    free(reach);
    for (size_t i = from; untold && i < d; i++) {
        const struct xr_instance *in = &x->instances[i];
        bool late;
        if (in->op != op || !complete(in) || in->skew_ns > bound)
            continue;
        if (in->all_timed) {
            small++;
            for (size_t k = 0; k < in->n; k++)
                acc[xr_event(r, x->members[in->first + k])->rank].small_own +=
                    wait_at(r, x, in, x->members[in->first + k]);
        }
        if (in->last_rank >= 0 && in->last_rank <= maxrank && told(x, in, &late))
            acc[in->last_rank].like_caused += caused_at(r, x, in);
    }
    uint64_t recorded = told_n + untold, calls = recorded;
    for (int rank = 0; rank <= maxrank; rank++) {
        uint64_t n = acc[rank].w.instances ? op_calls(r, acc[rank].w.file, x->instances[from].comm, rank,
                                                      report_name(r, op)) : 0;
        calls = n > calls ? n : calls;
    }
    if (from > 0 && x->instances[from - 1].comm == x->instances[from].comm &&
        x->instances[from - 1].op == op && calls > recorded)
        calls--;  /* the communicator's first, left out */
    double scale = recorded ? (double)calls / (double)recorded : 0;
    double per = small ? (double)untold / (double)small : 0, imputed = 0, told_caused = 0, like_caused = 0;
    for (int rank = 0; rank <= maxrank; rank++) {
        imputed += per * acc[rank].small_own;
        told_caused += acc[rank].told_caused;
        like_caused += acc[rank].like_caused;
    }
    for (int rank = 0; rank <= maxrank; rank++) {
        struct rank_acc *a = &acc[rank];
        double share = like_caused > 0 ? a->like_caused / like_caused
                       : told_caused > 0 ? a->told_caused / told_caused : 0;
        a->own_us += (a->told_own + per * a->small_own) * scale;
        a->caused_us += (a->told_caused + share * imputed) * scale;
    }
    return calls;
}

/* One communicator: x->instances[c .. d). */
static void find_in_comm(const struct report *r, struct crossrank *x, size_t c, size_t d, size_t *wcap,
                         size_t *scap)
{
    uint64_t comm = x->instances[c].comm;
    int maxrank = max_rank(r, x, c, d);
    struct rank_acc *acc = xcalloc((size_t)maxrank + 1, sizeof *acc);
    size_t from = after_first_complete(x, c, d);
    bool seen[256] = { false };
    struct lates lates = { 0 };
    uint64_t calls = 0;
    size_t measured = 0;
    for (size_t i = from; i < d; i++)
        if (!seen[x->instances[i].op]) {
            seen[x->instances[i].op] = true;
            calls += find_in_op(r, x, from, d, x->instances[i].op, acc, maxrank, &lates);
        }
    count_heavy(&lates, acc, maxrank);
    free(lates.v);
    double caused = 0;
    for (int rank = 0; rank <= maxrank; rank++) {
        caused += acc[rank].caused_us;
        measured = acc[rank].w.decided > measured ? acc[rank].w.decided : measured;
    }
    for (int rank = 0; rank <= maxrank; rank++) {
        struct rank_acc *a = &acc[rank];
        if (!a->w.instances)
            continue;
        a->w.comm = a->s.comm = comm;
        a->w.rank = a->s.rank = rank;
        a->w.measured = a->s.measured = measured;
        a->w.calls = a->s.calls = calls;
        a->w.wait_us_total = a->own_us;
        a->w.wait_us_mean = calls ? a->own_us / (double)calls : 0;
        push_wait(x, wcap, &a->w);
        struct xr_straggler *s = &a->s;
        s->last_fraction = s->decided ? (double)s->last / (double)s->decided : 0;
        s->caused_us_total = a->caused_us;
        s->caused_share = caused > 0 ? s->caused_us_total / caused : 0;
        for (int other = 0; other <= maxrank; other++)
            if (other != rank && acc[other].caused_us > s->next_us_total)
                s->next_us_total = acc[other].caused_us;
        if (s->last < XR_STRAGGLER_MIN_LAST || s->caused_share < XR_STRAGGLER_MIN_SHARE)
            continue;
        s->wait_us_mean = a->late_mean_us / (double)s->last;
        s->op = s->ops[0];
        for (size_t k = 1; k < s->nops; k++)
            if (s->ops_caused_us[k] > caused_by(s, s->op))
                s->op = s->ops[k];
        describe(r, x, c, from, d, s);
        push_straggler(x, scap, s);
    }
    free(acc);
}

void xr_find_stragglers(const struct report *r, struct crossrank *x)
{
    size_t wcap = 0, scap = 0;
    for (size_t c = 0; c < x->ninstances;) {
        size_t d = c;
        while (d < x->ninstances && x->instances[d].comm == x->instances[c].comm)
            d++;
        find_in_comm(r, x, c, d, &wcap, &scap);
        c = d;
    }
    if (x->nstragglers)
        qsort(x->stragglers, x->nstragglers, sizeof *x->stragglers, cmp_straggler);
}
