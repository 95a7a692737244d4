/* Statistics: percentiles within 2%, bandwidth as nccl-tests computes it,
 * one row per (comm, op, dtype, size class). */
#include <math.h>
#include <string.h>

#include "state/comm_registry.h"
#include "stats/stats.h"
#include "test.h"

static struct tap_op_rec op_of(struct tap_comm *c, int op, uint64_t bytes)
{
    struct tap_op_rec r;
    memset(&r, 0, sizeof r);
    r.comm = c;
    r.op = (uint8_t)op;
    r.dtype = 7;
    r.bytes = bytes;
    return r;
}

static const struct tap_stat *find(struct tap_comm *c, int op, unsigned cls)
{
    for (unsigned i = 0; i < tap_stats_count(); i++) {
        const struct tap_stat *s = tap_stats_at(i);
        if (s->comm == c && s->op == op && s->size_class == cls)
            return s;
    }
    return NULL;
}

void test_stats(void)
{
    static struct tap_comm a, b;
    a.nranks = b.nranks = 4;
    /* Durations 1..10000 us, uniformly: exact quantiles are known. */
    struct tap_op_rec r = op_of(&a, TAP_OP_ALLREDUCE, 1 << 20);
    for (int i = 1; i <= 10000; i++) {
        struct tap_timing t = {(uint64_t)i * 1000, (double)(1 << 20), (double)(1 << 20) * 1.5, false};
        tap_stats_record(&r, 1, &t);
    }
    const struct tap_stat *s = find(&a, TAP_OP_ALLREDUCE, 20);
    CHECK(s && s->calls == 10000 && s->timed == 10000);
    /* The first timed call is kept apart; the statistics are the rest. */
    CHECK(s && s->has_first && s->first_ns == 1000 && s->steady == 9999);
    if (s) {
        const double q[] = {0.5, 0.9, 0.99};
        for (int i = 0; i < 3; i++) {
            double exact = q[i] * 10000 * 1000;
            double got = tap_stat_quantile_ns(s, q[i]);
            CHECK(fabs(got - exact) / exact <= 0.02);
        }
        CHECK(s->time_min_ns == 2000 && s->time_max_ns == 10000000);
        CHECK(tap_stat_quantile_ns(s, 1.0) <= 10000000);
        /* Total bytes over total time, in GB/s: calls 2..10000. */
        double busbw = s->bw_busbytes / (double)s->time_sum_ns;
        CHECK(fabs(busbw - (double)(1 << 20) * 1.5 * 9999 / ((5000.5 * 10000 - 1) * 1000)) < 1e-9);
    }
    /* Untimed calls count, and size classes split rows. */
    struct tap_op_rec small = op_of(&a, TAP_OP_ALLREDUCE, 1000);
    tap_stats_record(&small, 1, NULL);
    tap_stats_record(&small, 1, NULL);
    const struct tap_stat *u = find(&a, TAP_OP_ALLREDUCE, 9);
    CHECK(u && u->calls == 2 && u->timed == 0 && !u->has_first && u->bytes_total == 2000);
    CHECK(u && tap_stat_quantile_ns(u, 0.5) == 0);
    /* Another communicator, many keys: the index grows and finds them all. */
    for (int op = 0; op < TAP_OP_COUNT; op++)
        for (unsigned cls = 0; cls < 40; cls++) {
            struct tap_op_rec x = op_of(&b, op, 1ull << cls);
            tap_stats_record(&x, 2, NULL);
        }
    CHECK(tap_stats_count() == 2 + TAP_OP_COUNT * 40);
    const struct tap_stat *g = find(&b, TAP_OP_SEND, 33);
    CHECK(g && g->calls == 1 && g->group_ops == 2);
}
