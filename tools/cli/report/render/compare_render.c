/* `nccltap report --compare A B` as text or JSON (analyze/compare.h): the
 * two runs' NCCL time per rank, then each (op, dtype, size) with what
 * changed, the largest change first, then their steps. */
#include "render.h"

#include <math.h>
#include <stdio.h>

#include "compare.h"
#include "escape.h"
#include "format.h"

#define COMPARE_ROWS 20  /* rows of the text; --json has them all */

static void print_num(FILE *out, int width, int prec, double v)
{
    if (isnan(v))
        fprintf(out, " %*s", width, "-");
    else
        fprintf(out, " %*.*f", width, prec, v);
}

static void print_run(const char *label, const char *path, size_t ranks, double nccl_us, FILE *out)
{
    fprintf(out, "  %s  %s: %zu rank%s, %.3f ms in NCCL per rank\n", label, path, ranks, ranks == 1 ? "" : "s",
            nccl_us / 1e3);
}

static void print_op(const struct compare_op *o, FILE *out)
{
    char size[16], op[SHOWN_MAX], dtype[SHOWN_MAX];  /* names from the files */
    fprintf(out, "  %-14s %-9s %6s %9llu %9llu", shown(o->op, op), shown(o->dtype, dtype), human_bytes(o->bytes, size),
            (unsigned long long)o->a.calls, (unsigned long long)o->b.calls);
    print_num(out, 9, 1, o->a.us_mean);
    print_num(out, 9, 1, o->b.us_mean);
    print_num(out, 8, 2, o->a.busbw_gbs);
    print_num(out, 8, 2, o->b.busbw_gbs);
    fprintf(out, " %9.3f %9.3f %+9.3f", o->a.time_per_rank_us / 1e3, o->b.time_per_rank_us / 1e3, o->delta_us / 1e3);
    if (o->a.time_per_rank_us > 0 && o->b.calls)
        fprintf(out, " %+5.0f%%", 100 * o->delta_us / o->a.time_per_rank_us);
    else
        fputs(o->a.calls ? "   gone" : "    new", out);
    fputc('\n', out);
}

static void print_steps_of(const char *label, const struct compare_steps *s, FILE *out)
{
    if (!s->nsteps) {
        fprintf(out, "  %s  none found\n", label);
        return;
    }
    fprintf(out, "  %s  %zu steps of %zu collective%s: %.3f ms a step, in collectives %.3f ms (waiting %.3f,"
            " transfer %.3f)\n", label, s->nsteps, s->period, s->period == 1 ? "" : "s", s->step_us / 1e3,
            s->comm_us / 1e3, s->wait_us / 1e3, s->transfer_us / 1e3);
}

int compare_print_text(const struct compare *c, const char *path_a, const char *path_b, FILE *out)
{
    fputs("nccltap report --compare: what changed in communication from A to B\n", out);
    print_run("A", path_a, c->ranks_a, c->nccl_us_a, out);
    print_run("B", path_b, c->ranks_b, c->nccl_us_b, out);
    fputs("\nOps matched by op, dtype and size over all communicators, the largest change in NCCL time per\n"
          "rank first (calls x mean time, summed over the ranks, over the ranks; times in us, busbw in GB/s)\n", out);
    fprintf(out, "  %-14s %-9s %6s %9s %9s %9s %9s %8s %8s %9s %9s %9s %6s\n", "op", "dtype", "size", "calls A",
            "calls B", "mean A", "mean B", "busbw A", "busbw B", "ms/rank A", "B", "change", "");
    for (size_t i = 0; i < c->nops && i < COMPARE_ROWS; i++)
        print_op(&c->ops[i], out);
    if (c->nops > COMPARE_ROWS)
        fprintf(out, "  ... %zu more (--json has them all)\n", c->nops - COMPARE_ROWS);
    if (!c->nops)
        fputs("  None: neither run has a timed op\n", out);
    fputs("\nSteps (each run's communicator with the most)\n", out);
    print_steps_of("A", &c->steps_a, out);
    print_steps_of("B", &c->steps_b, out);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const struct compare_side *s)
{
    return json_pack("{s:I, s:o, s:o, s:o, s:o}", "calls", (json_int_t)s->calls, "time_us", real_or_null(s->time_us),
                     "time_per_rank_us", real_or_null(s->time_per_rank_us), "us_mean", real_or_null(s->us_mean),
                     "busbw_gbs", real_or_null(s->busbw_gbs));
}

static json_t *steps_side_json(const struct compare_steps *s)
{
    if (!s->nsteps)
        return json_null();
    return json_pack("{s:I, s:I, s:o, s:o, s:o, s:o}", "nsteps", (json_int_t)s->nsteps, "period",
                     (json_int_t)s->period, "step_us", real_or_null(s->step_us), "comm_us", real_or_null(s->comm_us),
                     "wait_us", real_or_null(s->wait_us), "transfer_us", real_or_null(s->transfer_us));
}

int compare_print_json(const struct compare *c, const char *path_a, const char *path_b, FILE *out)
{
    json_t *ops = json_array();
    for (size_t i = 0; i < c->nops; i++) {
        const struct compare_op *o = &c->ops[i];
        json_array_append_new(ops, json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o}", "op", o->op, "dtype", o->dtype,
                                             "size_class", (json_int_t)o->size_class, "bytes", real_or_null(o->bytes),
                                             "a", side_json(&o->a), "b", side_json(&o->b), "delta_us",
                                             real_or_null(o->delta_us)));
    }
    json_t *doc = json_pack("{s:s, s:{s:s, s:I, s:o, s:o}, s:{s:s, s:I, s:o, s:o}, s:o}", "format",
                            "nccltap-compare/1", "a", "path", path_a, "ranks", (json_int_t)c->ranks_a,
                            "nccl_us_per_rank", real_or_null(c->nccl_us_a), "steps", steps_side_json(&c->steps_a), "b",
                            "path", path_b, "ranks", (json_int_t)c->ranks_b, "nccl_us_per_rank",
                            real_or_null(c->nccl_us_b), "steps", steps_side_json(&c->steps_b), "ops", ops);
    if (!doc)
        return -1;
    int rc = json_dumpf(doc, out, JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(doc);
    return fflush(out) == 0 && rc == 0 ? 0 : -1;
}
