#include "report.h"

#include <stdio.h>
#include "stats.h"

void report_version(int code, char *out, size_t len)
{
    /* Codes are MAJOR*10000+MINOR*100+PATCH since 2.9, MAJOR*1000+MINOR*100+PATCH before. */
    if (code >= 10000)
        snprintf(out, len, "%d.%d.%d", code / 10000, code % 10000 / 100, code % 100);
    else
        snprintf(out, len, "%d.%d.%d", code / 1000, code % 1000 / 100, code % 100);
}

void report_header(const struct rank_ctx *rk)
{
    const struct bench_opts *o = rk->o;
    if (rk->rank != 0)
        return;
    char version[32];
    report_version(rk->nccl_version, version, sizeof version);
    printf("# nccltap-bench: %d ranks, %d communicator%s (thread%s) per rank, NCCL %s\n",
           rk->world, o->threads, o->threads > 1 ? "s" : "", o->threads > 1 ? "s" : "",
           version);
    printf("# devices: %d visible to rank 0, which runs on device %d (%s); "
           "rank r runs on device (local rank r) mod devices\n",
           rk->ndev, rk->device, rk->device_name);
    printf("# dtype %s, iters %d, warmup %d, group %d, root %d\n",
           o->dtype->name, o->iters, o->warmup, o->group, o->root);
    for (int i = 0; i < OP_COUNT; i++)
        if (rk->op_skipped[i])
            printf("# %s: skipped, this NCCL does not have it\n", op_desc((enum bench_op)i)->label);
    printf("# time: host time per call, all calls back to back; events: mean of each call's "
           "own event pair (rank 0%s)\n", o->threads > 1 ? ", mean over its threads" : "");
    printf("#%13s %12s %9s %14s %11s %12s %12s %11s\n",
           "size(B)", "count", "type", "op", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "events(us)");
    fflush(stdout);
}

void report_skipped(const struct rank_ctx *rk, enum bench_op op, size_t size)
{
    if (rk->rank != 0)
        return;
    printf("# %s at %zu B: skipped, its count would be 0 (%s, %d ranks)\n",
           op_desc(op)->label, size, rk->o->dtype->name, rk->world);
    fflush(stdout);
}

void report_step(const struct rank_ctx *rk, enum bench_op op, const struct step_result *res)
{
    if (rk->rank != 0)
        return;
    struct step_stats st;
    step_stats(rk, op, res, &st);
    printf("%14zu %12zu %9s %14s %11.2f %12.2f %12.2f %11.2f\n",
           res->bytes, res->count, rk->o->dtype->name, op_desc(op)->label,
           st.wall_us, st.wall_algbw, st.wall_busbw, st.event_us);
    fflush(stdout);
}
