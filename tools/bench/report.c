#include "report.h"

#include <stdio.h>
#include "bench_stats.h"

/* nccl-tests' getFloatStr: `width` characters, with fewer decimals (or
 * in e-notation) when two do not fit. */
static void num(char *out, int width, double v)
{
    if (snprintf(out, (size_t)width + 1, "%*.2f", width, v) <= width)
        return;
    if (snprintf(out, (size_t)width + 1, "%*.1f", width, v) <= width)
        return;
    if (snprintf(out, (size_t)width + 1, "%*.0f", width, v) <= width)
        return;
    snprintf(out, (size_t)width + 1, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

void report_header(const struct rank_ctx *rk)
{
    const struct bench_opts *o = rk->o;
    if (rk->rank != 0)
        return;
    char version[32];
    printf("# nccltap-bench: %d ranks, %d communicator%s (thread%s) per rank, NCCL %s\n",
           rk->world, o->threads, o->threads > 1 ? "s" : "", o->threads > 1 ? "s" : "",
           tap_nccl_version_str(rk->nccl_version, version, sizeof version));
    printf("# devices: %d visible to rank 0, which runs on device %d (%s); "
           "rank r runs on device (local rank r) mod devices\n",
           rk->ndev, rk->device, rk->device_name);
    printf("# dtype %s, iters %d, warmup %d, group %d, root %d, in-place %d, check %d\n",
           o->dtype->name, o->iters, o->warmup, o->group, o->root, o->in_place, o->check);
    for (int i = 0; i < OP_COUNT; i++)
        if (rk->op_skipped[i])
            printf("# %s: skipped, this NCCL does not have it\n", op_label((enum bench_op)i));
    printf("# time: host time per call, all calls back to back (algbw, busbw from it); "
           "#wrong: wrong elements on all ranks (N/A: no --check)\n");
    printf("# oop-events, ip-events: mean of each call's own event pair, out of place and "
           "in place (rank 0%s); N/A: not run\n", o->threads > 1 ? ", mean over its threads" : "");
    printf("#\n");
    printf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place\n",
           "", "", "", "", "");
    printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s  %14s  %10s  %10s\n",
           "size", "count", "type", "redop", "root",
           "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong",
           "op", "oop-events", "ip-events");
    printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s  %14s  %10s  %10s\n",
           "(B)", "(elements)", "", "", "",
           "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "",
           "", "(us)", "(us)");
    fflush(stdout);
}

void report_skipped(const struct rank_ctx *rk, enum bench_op op, size_t size)
{
    if (rk->rank != 0)
        return;
    printf("# %s at %zu B: skipped, its count would be 0 (%s, %d ranks)\n",
           op_label(op), size, rk->o->dtype->name, rk->world);
    fflush(stdout);
}

void report_step(const struct rank_ctx *rk, enum bench_op op, const struct step_result *res)
{
    const struct bench_opts *o = rk->o;
    if (rk->rank != 0)
        return;
    printf("%12zu  %12zu  %8s  %6s  %6d", res->bytes, res->count, o->dtype->name,
           op_reduces(op) ? "sum" : "none", op_rooted(op) ? o->root : -1);
    char events[VAR_COUNT][16];
    for (int v = 0; v < VAR_COUNT; v++) {
        if (v >= rank_variants(rk)) {
            printf("  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
            snprintf(events[v], sizeof events[v], "N/A");
            continue;
        }
        struct step_stats st;
        step_stats(rk, op, res, v, &st);
        char time[8], algbw[7], busbw[7];
        num(time, 7, st.wall_us);
        num(algbw, 6, st.wall_algbw);
        num(busbw, 6, st.wall_busbw);
        num(events[v], 10, st.event_us);
        if (o->check)
            printf("  %7s  %6s  %6s  %6g", time, algbw, busbw, (double)res->var[v].wrong);
        else
            printf("  %7s  %6s  %6s  %6s", time, algbw, busbw, "N/A");
    }
    printf("  %14s  %10s  %10s\n", op_label(op), events[0], events[1]);
    fflush(stdout);
}

void report_footer(const struct rank_ctx *rk)
{
    const struct bench_opts *o = rk->o;
    if (rk->rank != 0)
        return;
    double sum = 0;
    int n = 0, wrong = 0;
    for (int i = 0; i < o->nops; i++) {
        enum bench_op op = o->ops[i];
        if (rk->op_skipped[op])
            continue;
        for (int s = 0; s < o->nsizes; s++) {
            const struct step_result *res = &rk->steps[i * o->nsizes + s];
            if (res->count == 0)
                continue;
            for (int v = 0; v < rank_variants(rk); v++) {
                struct step_stats st;
                step_stats(rk, op, res, v, &st);
                sum += st.wall_busbw;
                n++;
                wrong += res->var[v].wrong > 0;
            }
        }
    }
    printf("# %-20s : %d %s\n", "Out of bounds values", wrong, wrong ? "FAILED" : "OK");
    if (n)
        printf("# %-20s : %g\n", "Avg bus bandwidth", sum / n);
    else
        printf("# %-20s : N/A\n", "Avg bus bandwidth");
    printf("#\n");
    fflush(stdout);
}
