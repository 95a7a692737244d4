/* nccltap-bench's own results beside a run: bench-<run>.rank<R>.json, as
 * `nccltap-bench --json DIR/bench-<run>.json` writes them (nccltap demo
 * does; under `nccltap run`, $NCCLTAP_DIR and $NCCLTAP_RUN_ID name them).
 * Each op and size's busbw, timed by the bench's own events, goes into
 * r->bench: the figure nccl-tests would print, beside nccltap's. */
#include "load.h"
#include "input_file.h"
#include "input_limits.h"
#include "record_check.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A busbw no link reaches (GB/s): a larger one is damaged input. */
#define BENCH_MAX_GBS 1e6

/* Whether `name` is bench-<run>.rank<digits>.json. */
static bool bench_name(const char *name, const char *run, size_t run_len)
{
    if (strncmp(name, "bench-", 6) != 0 || strncmp(name + 6, run, run_len) != 0)
        return false;
    const char *p = name + 6 + run_len;
    if (strncmp(p, ".rank", 5) != 0)
        return false;
    p += 5;
    const char *digits = p;
    while (*p >= '0' && *p <= '9')
        p++;
    return p > digits && strcmp(p, ".json") == 0;
}

/* One op and size of a bench file, or false (left out) when a field is
 * missing or out of range. */
static bool bench_row(struct report *r, json_t *o, int rank, struct bench_row *b)
{
    const char *op = json_string_value(json_object_get(o, "op"));
    json_t *bytes = json_object_get(o, "bytes"), *busbw = json_object_get(o, "busbw_gbs");
    if (!op || !json_is_integer(bytes) || !json_is_number(busbw))
        return false;
    double gbs = json_number_value(busbw);
    json_int_t n = json_integer_value(bytes);
    if (n <= 0 || (uint64_t)n > REPORT_MAX_OP_BYTES || !isfinite(gbs) || gbs <= 0 || gbs > BENCH_MAX_GBS)
        return false;
    *b = (struct bench_row){ report_intern(r, op), (uint64_t)n, gbs, rank };
    return true;
}

static void load_one(struct report *r, const char *path)
{
    char why[128];
    int fd = input_open(path, REPORT_MAX_DOC_BYTES, why, sizeof why);
    if (fd < 0) {
        msg("%s: %s: the bench's results are not read", path, why);
        return;
    }
    json_error_t err;
    json_t *root = json_loadfd(fd, 0, &err);
    close(fd);
    json_t *ops = root ? json_object_get(root, "ops") : NULL, *rank = json_object_get(root, "rank");
    if (!json_is_array(ops) || !json_is_integer(rank) || json_integer_value(rank) < 0 ||
        json_integer_value(rank) >= REPORT_MAX_NRANKS) {
        msg("%s: not nccltap-bench's --json results (rank, ops): not read", path);
        json_decref(root);
        return;
    }
    r->bench = xrealloc(r->bench, (r->nbench + json_array_size(ops) + 1) * sizeof *r->bench);
    size_t i, rejected = 0;
    json_t *o;
    json_array_foreach(ops, i, o) {
        if (bench_row(r, o, (int)json_integer_value(rank), &r->bench[r->nbench]))
            r->nbench++;
        else
            rejected++;
    }
    report_rejected(r, path, rejected, "bench result", "a field missing or out of range");
    json_decref(root);
}

void report_load_bench(struct report *r)
{
    if (r->nfiles == 0 || r->from_trace)
        return;
    size_t run_len;
    const char *run = report_run_of(r->files[0].path, &run_len);
    const char *slash = strrchr(r->files[0].path, '/');
    char *dir = slash ? xasprintf("%.*s", (int)(slash - r->files[0].path), r->files[0].path) : xstrdup(".");
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!bench_name(e->d_name, run, run_len))
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        load_one(r, path);
        free(path);
    }
    if (d)
        closedir(d);
    free(dir);
}
