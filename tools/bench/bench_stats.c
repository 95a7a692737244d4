#include "bench_stats.h"

/* nccl-tests: algbw = S / t, GB/s meaning 1e9 bytes per second. */
static double gbs(size_t bytes, double us)
{
    return us > 0 ? (double)bytes / (us * 1e3) : 0.0;
}

void step_stats(const struct rank_ctx *rk, enum bench_op op,
                const struct step_result *res, int v, struct step_stats *st)
{
    const struct bench_opts *o = rk->o;
    const struct variant_result *var = &res->var[v];
    double wall = 0, events = 0;
    for (int t = 0; t < o->threads; t++) {
        wall += var->wall_us[t];
        events += var->event_sum_us[t];
    }
    double factor = op_busbw_factor(op, rk->world);
    st->calls = (long)o->iters * o->threads;
    st->wall_us = wall / o->threads;
    st->wall_algbw = gbs(res->bytes, st->wall_us);
    st->wall_busbw = st->wall_algbw * factor;
    st->event_us = events / (double)st->calls;
    st->event_algbw = gbs(res->bytes, st->event_us);
    st->event_busbw = st->event_algbw * factor;
}
