/* Stragglers: per (communicator, rank), how often the rank started last at
 * the communicator's collectives by more than the clocks' error, and how
 * long it held the others up then (the instance's skew). And each rank's
 * own wait there: the latest start minus its own.
 * A communicator's first complete instance is left out: its skew is how
 * much later one rank finished starting up and initialising (NCCL also
 * connects lazily there), not a rank late at its work, the same reason
 * a row's first timed call is kept apart (first_us). */
#include "stragglers.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Listed when last in at least this share of its instances, and at least
 * MIN_LAST times: a rank that is last by chance is last rarely. */
#define MIN_LAST_FRACTION 0.1
#define MIN_LAST 3
/* Waits are measured on the instances every rank timed precisely (auto's
 * sample, the same ops on every rank) where there are this many: a
 * stamp's start is known only to its span, and a wait less that doubt is
 * short by it. Elsewhere, on the instances that can be told. */
#define MIN_TIMED 10

/* Sums of waits over all instances told, and over those timed. */
struct sums {
    size_t n, timed_n;
    double us, timed_us;
};

static void add_to(struct sums *s, double us, bool timed)
{
    s->n++;
    s->us += us;
    s->timed_n += timed;
    s->timed_us += timed ? us : 0;
}

/* The mean wait, from the timed instances where there are enough. */
static double mean_of(const struct sums *s)
{
    if (s->timed_n >= MIN_TIMED)
        return s->timed_us / (double)s->timed_n;
    return s->n ? s->us / (double)s->n : 0;
}

static void note_op(struct xr_straggler *s, uint8_t op)
{
    for (size_t i = 0; i < s->nops; i++)
        if (s->ops[i] == op)
            return;
    if (s->nops < sizeof s->ops)
        s->ops[s->nops++] = op;
}

static int cmp_straggler(const void *a, const void *b)
{
    const struct xr_straggler *x = a, *y = b;
    return (x->wait_us_total < y->wait_us_total) - (x->wait_us_total > y->wait_us_total);
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

void xr_find_stragglers(const struct report *r, struct crossrank *x)
{
    size_t cap = 0, wcap = 0;
    for (size_t c = 0; c < x->ninstances;) {
        size_t d = c;
        int maxrank = 0;
        for (; d < x->ninstances && x->instances[d].comm == x->instances[c].comm; d++)
            for (size_t k = 0; k < x->instances[d].n; k++) {
                int rank = xr_event(r, x->members[x->instances[d].first + k])->rank;
                maxrank = rank > maxrank ? rank : maxrank;
            }
        struct xr_straggler *acc = xcalloc((size_t)maxrank + 1, sizeof *acc);
        struct xr_wait *wait = xcalloc((size_t)maxrank + 1, sizeof *wait);
        struct sums *own = xcalloc((size_t)maxrank + 1, sizeof *own), *caused = xcalloc((size_t)maxrank + 1,
                                                                                         sizeof *caused);
        size_t from = after_first_complete(x, c, d);
        for (size_t i = from; i < d; i++) {
            const struct xr_instance *in = &x->instances[i];
            if (!complete(in))
                continue;
            /* Told: the last rank was last beyond what the stamps' spans
             * allow, or nobody could have been (the skew may be as much
             * larger as it may be smaller). The others are counted, not
             * judged: their waits and who was last are not known. */
            double doubt = in->skew_ns - in->skew_sure_ns;
            bool late = in->skew_sure_ns > x->threshold_ns;
            bool told = late || in->skew_ns + doubt <= x->threshold_ns;
            for (size_t k = 0; k < in->n; k++) {
                struct xr_member m = x->members[in->first + k];
                int rank = xr_event(r, m)->rank;
                struct xr_straggler *s = &acc[rank];
                s->instances++;
                s->file = m.file;
                wait[rank].instances++;
                if (!told)
                    continue;
                s->decided++;
                wait[rank].decided++;
                /* Less what the two starts' spans allow: stamped starts
                 * differ by the polls' phase too, which is no wait. */
                double slack = in->last_err_down_ns + xr_start_err_up(r, m);
                double w = (double)(in->latest_start_ns - xr_start(r, m)) - slack;
                w = w > 0 ? w / 1e3 : 0;
                add_to(&own[rank], w, in->all_timed);
                wait[rank].wait_us_max = w > wait[rank].wait_us_max ? w : wait[rank].wait_us_max;
            }
            if (!late)
                continue;
            struct xr_straggler *s = &acc[in->last_rank];
            s->last++;
            add_to(&caused[in->last_rank], in->others_wait_ns / 1e3, in->all_timed);
            xr_keep_worst(s->worst_seq, s->worst_replay, s->worst_us, &s->nworst, in->seq, in->replay,
                          in->others_wait_ns / 1e3, true);
            note_op(s, in->op);
        }
        for (int rank = 0; rank <= maxrank; rank++) {
            struct xr_straggler *s = &acc[rank];
            if (!s->instances)
                continue;
            if (x->nwaits == wcap)
                x->waits = xrealloc(x->waits, (wcap = wcap ? 2 * wcap : 64) * sizeof *x->waits);
            struct xr_wait *w = &x->waits[x->nwaits++];
            *w = wait[rank];
            w->comm = x->instances[c].comm;
            w->rank = rank;
            w->file = s->file;
            w->wait_us_mean = mean_of(&own[rank]);
            w->wait_us_total = w->wait_us_mean * (double)w->decided;
            s->last_fraction = s->decided ? (double)s->last / (double)s->decided : 0;
            if (s->last < MIN_LAST || s->last_fraction < MIN_LAST_FRACTION)
                continue;
            s->comm = x->instances[c].comm;
            s->rank = rank;
            s->wait_us_mean = mean_of(&caused[rank]);
            s->wait_us_total = s->wait_us_mean * (double)s->last;
            /* The median wait, over the instances it was last in (the
             * timed ones, where mean_of takes those). */
            bool timed = caused[rank].timed_n >= MIN_TIMED;
            double *m = xmalloc(s->last * sizeof *m);
            size_t n = 0;
            for (size_t i = from; i < d; i++) {
                const struct xr_instance *in = &x->instances[i];
                if (complete(in) && in->skew_sure_ns > x->threshold_ns && in->last_rank == rank &&
                    (in->all_timed || !timed))
                    m[n++] = in->others_wait_ns / 1e3;
            }
            s->wait_us_median = xr_median(m, n);
            free(m);
            if (x->nstragglers == cap)
                x->stragglers = xrealloc(x->stragglers, (cap = cap ? 2 * cap : 8) * sizeof *x->stragglers);
            x->stragglers[x->nstragglers++] = *s;
        }
        free(acc);
        free(wait);
        free(own);
        free(caused);
        c = d;
    }
    if (x->nstragglers)
        qsort(x->stragglers, x->nstragglers, sizeof *x->stragglers, cmp_straggler);
}
