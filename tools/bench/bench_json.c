#include "bench_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fail.h"
#include "bench_stats.h"

char *json_rank_path(const char *file, int rank)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char *dot = strrchr(base, '.');
    if (dot == base)        /* ".json" is a hidden file's name, not an extension */
        dot = NULL;
    size_t stem = dot ? (size_t)(dot - file) : strlen(file);
    const char *ext = dot ? dot : "";
    size_t len = strlen(file) + 32;
    char *out = malloc(len);
    if (!out)
        bench_die("out of memory");
    snprintf(out, len, "%.*s.rank%d%s", (int)stem, file, rank, ext);
    return out;
}

/* The numbers of one variant, after "{" or ", ". */
static void write_numbers(FILE *f, const struct rank_ctx *rk, const struct step_result *res,
                          int v, const struct step_stats *st)
{
    const struct bench_opts *o = rk->o;
    /* Bandwidths to 6 significant digits: an 8 B op's 0.00004 GB/s is not 0. */
    fprintf(f, "\"calls\": %ld, \"mean_us\": %.3f, \"algbw_gbs\": %.6g, \"busbw_gbs\": %.6g, "
               "\"wall_us\": %.3f",
            st->calls, st->event_us, st->event_algbw, st->event_busbw, st->wall_us);
    if (o->check)
        fprintf(f, ", \"wrong\": %lld", res->var[v].wrong);
    else
        fputs(", \"wrong\": null", f);
    if (res->var[v].per_call_us) {
        fputs(", \"per_call_us\": [", f);
        size_t n = (size_t)o->iters * o->threads;
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s%.3f", i ? ", " : "", res->var[v].per_call_us[i]);
        fputc(']', f);
    }
}

static void write_row(FILE *f, const struct rank_ctx *rk, enum bench_op op, const char *name,
                      const struct step_result *res, bool *first)
{
    const struct bench_opts *o = rk->o;
    struct step_stats st;
    step_stats(rk, op, res, VAR_OUT_OF_PLACE, &st);
    fprintf(f, "%s\n    {\"op\": \"%s\", \"dtype\": \"%s\", \"bytes\": %zu, \"count\": %zu, ",
            *first ? "" : ",", name, o->dtype->name, res->bytes, res->count);
    *first = false;
    write_numbers(f, rk, res, VAR_OUT_OF_PLACE, &st);
    if (rank_variants(rk) > VAR_IN_PLACE) {
        step_stats(rk, op, res, VAR_IN_PLACE, &st);
        fputs(", \"in_place\": {", f);
        write_numbers(f, rk, res, VAR_IN_PLACE, &st);
        fputc('}', f);
    }
    fputc('}', f);
}

static void write_all(FILE *f, const struct rank_ctx *rk)
{
    const struct bench_opts *o = rk->o;
    char version[32];
    tap_nccl_version_str(rk->nccl_version, version, sizeof version);
    fprintf(f, "{\"rank\": %d, \"nranks\": %d, \"device\": %d, \"nccl_version\": %d, "
               "\"nccl_version_string\": \"%s\", \"threads\": %d, \"iters\": %d, "
               "\"warmup\": %d, \"group\": %d, \"in_place\": %s, \"check\": %s,\n  \"ops\": [",
            rk->rank, rk->world, rk->device, rk->nccl_version, version,
            o->threads, o->iters, o->warmup, o->group,
            o->in_place ? "true" : "false", o->check ? "true" : "false");
    bool first = true;
    for (int i = 0; i < o->nops; i++) {
        enum bench_op op = o->ops[i];
        if (rk->op_skipped[op])
            continue;
        const struct op_desc *d = op_desc(op);
        for (int s = 0; s < o->nsizes; s++) {
            const struct step_result *res = &rk->steps[i * o->nsizes + s];
            if (res->count == 0)
                continue;
            /* sendrecv is one row per NCCL function, as the shim sees it. */
            for (int r = 0; r < d->nfns; r++)
                write_row(f, rk, op, tap_op_name(d->fns[r]), res, &first);
        }
    }
    fputs("\n  ]\n}\n", f);
}

void json_write(const struct rank_ctx *rk)
{
    char *path = json_rank_path(rk->o->json, rk->rank);
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp)
        bench_die("out of memory");
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "we");
    if (!f)
        bench_die("cannot write %s: %s", tmp, strerror(errno));
    write_all(f, rk);
    bool ok = !ferror(f);
    if (fclose(f) != 0)
        ok = false;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        bench_die("cannot write %s: %s", path, strerror(e));
    }
    free(tmp);
    free(path);
}
