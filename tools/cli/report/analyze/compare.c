/* Two runs' ops matched by (op, dtype, size class) (compare.h). */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static struct compare_op *find_or_add(struct compare *c, size_t *cap, const struct line_summary *l)
{
    const struct op_row *k = l->m.first;
    for (size_t i = 0; i < c->nops; i++)
        if (!strcmp(c->ops[i].op, k->op) && !strcmp(c->ops[i].dtype, k->dtype) &&
            c->ops[i].size_class == k->size_class)
            return &c->ops[i];
    if (c->nops == *cap)
        c->ops = xrealloc(c->ops, (*cap = *cap ? 2 * *cap : 16) * sizeof *c->ops);
    struct compare_op *o = &c->ops[c->nops++];
    memset(o, 0, sizeof *o);
    o->op = k->op;
    o->dtype = k->dtype;
    o->size_class = k->size_class;
    return o;
}

/* Adds line l to side s: its calls and time, and its mean time and busbw
 * weighted by its calls (s's weights so far: s->calls before). */
static void add_line(struct compare_side *s, double *bytes, const struct line_summary *l)
{
    double w0 = (double)s->calls, w = (double)l->m.calls;
    if (!isnan(l->us_mean))
        s->us_mean = isnan(s->us_mean) || !w0 ? l->us_mean : (s->us_mean * w0 + l->us_mean * w) / (w0 + w);
    if (!isnan(l->busbw_gbs))
        s->busbw_gbs = isnan(s->busbw_gbs) || !w0 ? l->busbw_gbs
                                                  : (s->busbw_gbs * w0 + l->busbw_gbs * w) / (w0 + w);
    s->calls += l->m.calls;
    s->time_us += l->time_us;
    if (w >= w0)
        *bytes = l->bytes;
}

static void add_run(struct compare *c, size_t *cap, const struct report_summary *r, bool is_b)
{
    for (size_t i = 0; i < r->nlines; i++) {
        struct compare_op *o = find_or_add(c, cap, &r->lines[i]);
        struct compare_side *s = is_b ? &o->b : &o->a;
        if (!s->calls)
            s->us_mean = s->busbw_gbs = NAN;
        add_line(s, &o->bytes, &r->lines[i]);
    }
}

static int cmp_delta(const void *x, const void *y)
{
    double a = fabs(((const struct compare_op *)x)->delta_us), b = fabs(((const struct compare_op *)y)->delta_us);
    return (a < b) - (a > b);
}

static void steps_of(const struct steps *st, struct compare_steps *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < st->ncomms; i++) {
        const struct comm_steps *c = &st->comms[i];
        if (c->nsteps <= out->nsteps)
            continue;
        *out = (struct compare_steps){ c->nsteps, c->period, c->step_us_median, c->comm_us_median,
                                       c->wait_us_median, c->transfer_us_median };
    }
}

void compare_runs(const struct report_summary *a, const struct report_summary *b, struct compare *c)
{
    memset(c, 0, sizeof *c);
    size_t cap = 0;
    c->ranks_a = a->nranks;
    c->ranks_b = b->nranks;
    add_run(c, &cap, a, false);
    add_run(c, &cap, b, true);
    for (size_t i = 0; i < c->nops; i++) {
        struct compare_op *o = &c->ops[i];
        if (!o->a.calls)
            o->a.us_mean = o->a.busbw_gbs = NAN;
        if (!o->b.calls)
            o->b.us_mean = o->b.busbw_gbs = NAN;
        o->a.time_per_rank_us = c->ranks_a ? o->a.time_us / (double)c->ranks_a : 0;
        o->b.time_per_rank_us = c->ranks_b ? o->b.time_us / (double)c->ranks_b : 0;
        o->delta_us = o->b.time_per_rank_us - o->a.time_per_rank_us;
        c->nccl_us_a += o->a.time_per_rank_us;
        c->nccl_us_b += o->b.time_per_rank_us;
    }
    if (c->nops)
        qsort(c->ops, c->nops, sizeof *c->ops, cmp_delta);
    steps_of(&a->steps, &c->steps_a);
    steps_of(&b->steps, &c->steps_b);
}

void compare_free(struct compare *c)
{
    free(c->ops);
    memset(c, 0, sizeof *c);
}
