#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fail.h"
#include "report.h"
#include "stats.h"

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

static void write_row(FILE *f, const struct rank_ctx *rk, const char *name,
                      const struct step_result *res, const struct step_stats *st, bool *first)
{
    const struct bench_opts *o = rk->o;
    fprintf(f, "%s\n    {\"op\": \"%s\", \"dtype\": \"%s\", \"bytes\": %zu, \"count\": %zu, "
               "\"calls\": %ld, \"mean_us\": %.3f, \"algbw_gbs\": %.4f, \"busbw_gbs\": %.4f, "
               "\"wall_us\": %.3f",
            *first ? "" : ",", name, o->dtype->name, res->bytes, res->count,
            st->calls, st->event_us, st->event_algbw, st->event_busbw, st->wall_us);
    *first = false;
    if (res->per_call_us) {
        fputs(", \"per_call_us\": [", f);
        size_t n = (size_t)o->iters * o->threads;
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%s%.3f", i ? ", " : "", res->per_call_us[i]);
        fputc(']', f);
    }
    fputc('}', f);
}

static void write_all(FILE *f, const struct rank_ctx *rk)
{
    const struct bench_opts *o = rk->o;
    char version[32];
    report_version(rk->nccl_version, version, sizeof version);
    fprintf(f, "{\"rank\": %d, \"nranks\": %d, \"device\": %d, \"nccl_version\": %d, "
               "\"nccl_version_string\": \"%s\", \"threads\": %d, \"iters\": %d, "
               "\"warmup\": %d, \"group\": %d,\n  \"ops\": [",
            rk->rank, rk->world, rk->device, rk->nccl_version, version,
            o->threads, o->iters, o->warmup, o->group);
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
            struct step_stats st;
            step_stats(rk, op, res, &st);
            /* sendrecv is one row per NCCL function, as the shim sees it. */
            for (int r = 0; r < d->nrows; r++)
                write_row(f, rk, d->rows[r], res, &st, &first);
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
