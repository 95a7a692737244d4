/* Reading the per-rank files. Parsing is jansson's; this file checks that
 * each file has the fields the report needs, and names the file and the
 * field when it does not: a report silently missing a rank is worse than one
 * that says which rank is missing and why. */
#include "load.h"
#include "json_fields.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_NAME "nccltap-rank/"
#define FORMAT_MAJOR "1"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Listed and matched by hand rather than with glob(3), so that a directory
 * name with '*' or '[' in it is not taken for a pattern. */
char **report_files(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 16;
    char **files = xcalloc(cap, sizeof *files);
    for (struct dirent *e; (e = readdir(d));) {
        if (fnmatch(RANK_FILE_PATTERN, e->d_name, FNM_PERIOD) != 0)
            continue;
        if (*n + 1 >= cap)
            files = xrealloc(files, (cap *= 2) * sizeof *files);
        files[(*n)++] = xasprintf("%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(files, *n, sizeof *files, cmp_str);
    files[*n] = NULL;
    return files;
}

void report_files_free(char **files)
{
    for (char **f = files; f && *f; f++)
        free(*f);
    free(files);
}

/* "1" and "1.x" are this major version: minor versions only add fields. */
static bool format_supported(const char *format)
{
    size_t n = strlen(FORMAT_NAME);
    if (strncmp(format, FORMAT_NAME, n) != 0)
        return false;
    const char *v = format + n;
    size_t m = strlen(FORMAT_MAJOR);
    return strncmp(v, FORMAT_MAJOR, m) == 0 && (v[m] == '\0' || v[m] == '.');
}

/* ---- what each part of a file holds ---- */

static const struct field file_fields[] = {
    OPT("final", K_BOOL, struct rank_file, final),
    F("host", K_STR, struct rank_file, host),
    F("pid", K_LL, struct rank_file, pid),
    OPT("job", K_STR, struct rank_file, job),
    OPT("nccl_version_str", K_STR, struct rank_file, nccl_version),
    OPT("timing", K_STR, struct rank_file, timing),
    OPT("timing_note", K_STR, struct rank_file, timing_note),
    OPT("wall_s", K_NUM, struct rank_file, wall_s),
    F("totals.calls", K_U64, struct rank_file, totals.calls),
    F("totals.dropped", K_U64, struct rank_file, totals.dropped),
    F("totals.timed", K_U64, struct rank_file, totals.timed),
    F("totals.untimed", K_U64, struct rank_file, totals.untimed),
    F("totals.captured", K_U64, struct rank_file, totals.captured),
    F("totals.pending", K_U64, struct rank_file, totals.pending),
    F("totals.failed", K_U64, struct rank_file, totals.failed),
    OPT("totals.lost", K_U64, struct rank_file, totals.lost),
    OPT("totals.simulated", K_U64, struct rank_file, totals.simulated),
};

static const struct field comm_fields[] = {
    F("id", K_STR, struct comm_entry, id),
    OPT("parent", K_STR, struct comm_entry, parent),
    OPT("name", K_STR, struct comm_entry, name),
    F("rank", K_INT, struct comm_entry, rank),
    F("nranks", K_INT, struct comm_entry, nranks),
    OPT("origin", K_STR, struct comm_entry, origin),
    OPT("state", K_STR, struct comm_entry, state),
};

static const struct field op_fields[] = {
    F("rank", K_INT, struct op_row, rank),
    F("comm", K_STR, struct op_row, comm),
    OPT("comm_name", K_STR, struct op_row, comm_name),
    F("op", K_STR, struct op_row, op),
    F("dtype", K_STR, struct op_row, dtype),
    F("size_class", K_U64, struct op_row, size_class),
    F("bytes", K_NUM, struct op_row, bytes),
    F("bytes_total", K_U64, struct op_row, bytes_total),
    F("calls", K_U64, struct op_row, calls),
    F("timed", K_U64, struct op_row, timed),
    OPT("grouped", K_NUM, struct op_row, grouped),
    F("time_ns.sum", K_U64, struct op_row, t_sum),
    F("time_ns.min", K_U64, struct op_row, t_min),
    F("time_ns.max", K_U64, struct op_row, t_max),
    F("time_us.mean", K_NUM, struct op_row, us_mean),
    F("time_us.min", K_NUM, struct op_row, us_min),
    F("time_us.p50", K_NUM, struct op_row, us_p50),
    F("time_us.p90", K_NUM, struct op_row, us_p90),
    F("time_us.p99", K_NUM, struct op_row, us_p99),
    F("time_us.max", K_NUM, struct op_row, us_max),
    F("algbw_gbs", K_NUM, struct op_row, algbw_gbs),
    F("busbw_gbs", K_NUM, struct op_row, busbw_gbs),
    F("bw_bytes", K_NUM, struct op_row, bw_bytes),
    F("bw_busbytes", K_NUM, struct op_row, bw_busbytes),
};

/* Replaces each string field of `dst` (pointing into the parsed document,
 * which is about to be freed) with its interned copy. */
static void intern_fields(struct report *r, const struct field *table, size_t n, void *dst)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].kind == K_STR) {
            const char **p = (const char **)((char *)dst + table[i].offset);
            *p = report_intern(r, *p);
        }
}

/* ---- arrays ---- */

static json_t *array_field(json_t *obj, const char *key, bool optional, char *why, size_t why_len)
{
    json_t *a = json_object_get(obj, key);
    if ((!a || json_is_null(a)) && optional)
        return NULL;
    if (!json_is_array(a)) {
        snprintf(why, why_len, "\"%s\" is %s", key, a ? "not an array" : "missing");
        return NULL;
    }
    return a;
}

static int load_hist(struct report *r, json_t *obj, struct op_row *row, char *why,
                     size_t why_len)
{
    why[0] = '\0';
    json_t *hist = array_field(obj, "hist", true, why, why_len);
    if (!hist)
        return why[0] ? -1 : 0;
    row->nhist = json_array_size(hist);
    row->hist = report_alloc(r, row->nhist * sizeof *row->hist);
    for (size_t i = 0; i < row->nhist; i++) {
        json_t *bin = json_array_get(hist, i);
        json_t *b = json_array_get(bin, 0), *c = json_array_get(bin, 1);
        if (json_array_size(bin) != 2 || !json_is_integer(b) || !json_is_integer(c) ||
            json_integer_value(b) < 0 || json_integer_value(b) >= REPORT_HIST_BUCKETS ||
            json_integer_value(c) < 0 || json_integer_value(c) > UINT32_MAX) {
            snprintf(why, why_len, "\"hist\"[%zu] is not [bucket, count] (bucket 0..%d, a 32-bit count)",
                     i, REPORT_HIST_BUCKETS - 1);
            return -1;
        }
        row->hist[i].bucket = (int32_t)json_integer_value(b);
        row->hist[i].count = (uint32_t)json_integer_value(c);
    }
    return 0;
}

static int load_ranks(json_t *root, struct rank_file *f, char *why, size_t why_len)
{
    json_t *ranks = array_field(root, "ranks", false, why, why_len);
    if (!ranks)
        return -1;
    f->nranks = json_array_size(ranks);
    f->ranks = xcalloc(f->nranks, sizeof *f->ranks);
    for (size_t i = 0; i < f->nranks; i++) {
        json_t *v = json_array_get(ranks, i);
        if (!json_is_integer(v)) {
            snprintf(why, why_len, "\"ranks\"[%zu] is not an integer", i);
            return -1;
        }
        f->ranks[i] = (int)json_integer_value(v);
    }
    return 0;
}

static int load_comms(struct report *r, json_t *root, struct rank_file *f, char *why,
                      size_t why_len)
{
    json_t *comms = array_field(root, "comms", false, why, why_len);
    if (!comms)
        return -1;
    f->ncomms = json_array_size(comms);
    f->comms = xcalloc(f->ncomms, sizeof *f->comms);
    for (size_t i = 0; i < f->ncomms; i++) {
        struct comm_entry *c = &f->comms[i];
        c->parent = c->name = c->origin = c->state = "";
        char inner[160];
        if (json_fields_load(json_array_get(comms, i), comm_fields, NFIELDS(comm_fields), c,
                             inner, sizeof inner) != 0) {
            snprintf(why, why_len, "\"comms\"[%zu]: %s", i, inner);
            return -1;
        }
        intern_fields(r, comm_fields, NFIELDS(comm_fields), c);
    }
    return 0;
}

static int load_ops(struct report *r, json_t *root, struct rank_file *f, char *why,
                    size_t why_len)
{
    json_t *ops = array_field(root, "ops", false, why, why_len);
    if (!ops)
        return -1;
    f->nops = json_array_size(ops);
    f->ops = xcalloc(f->nops, sizeof *f->ops);
    for (size_t i = 0; i < f->nops; i++) {
        struct op_row *row = &f->ops[i];
        json_t *obj = json_array_get(ops, i);
        row->comm_name = "";
        row->grouped = 1.0;
        char inner[160];
        if (json_fields_load(obj, op_fields, NFIELDS(op_fields), row, inner, sizeof inner) != 0 ||
            load_hist(r, obj, row, inner, sizeof inner) != 0) {
            snprintf(why, why_len, "\"ops\"[%zu]: %s", i, inner);
            return -1;
        }
        intern_fields(r, op_fields, NFIELDS(op_fields), row);
    }
    return 0;
}

/* Fills f from its parsed root; on failure `why` says what is wrong. */
static int load_document(struct report *r, json_t *root, struct rank_file *f, char *why,
                         size_t why_len)
{
    json_t *format = json_object_get(root, "format");
    if (!json_is_string(format)) {
        snprintf(why, why_len, "no \"format\": not a per-rank file of nccltap");
        return -1;
    }
    if (!format_supported(json_string_value(format))) {
        snprintf(why, why_len, "format \"%s\" is not supported (this nccltap reads %s%s)",
                 json_string_value(format), FORMAT_NAME, FORMAT_MAJOR);
        return -1;
    }
    f->final = true;
    f->job = f->nccl_version = f->timing = f->timing_note = "";
    if (json_fields_load(root, file_fields, NFIELDS(file_fields), f, why, why_len) != 0)
        return -1;
    intern_fields(r, file_fields, NFIELDS(file_fields), f);
    if (load_ranks(root, f, why, why_len) != 0 || load_comms(r, root, f, why, why_len) != 0 ||
        load_ops(r, root, f, why, why_len) != 0 || report_load_callsites(r, root, f, why, why_len) != 0)
        return -1;
    return 0;
}

/* The histograms and strings are the report's, freed with it. */
static void rank_file_free(struct rank_file *f)
{
    free(f->ops);
    free(f->events);
    free(f->comms);
    free(f->ranks);
    free(f->path);
    memset(f, 0, sizeof *f);
}

/* op_row.file points into r->files: set for files[from..], and for all of
 * them when the array has moved. */
static void link_rows(struct report *r, size_t from)
{
    for (size_t i = from; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].nops; j++)
            r->files[i].ops[j].file = &r->files[i];
}

int report_add_document(struct report *r, const char *path, json_t *root)
{
    struct rank_file f;
    memset(&f, 0, sizeof f);
    f.path = xstrdup(path);
    char why[256];
    int loaded = load_document(r, root, &f, why, sizeof why);
    json_decref(root);
    if (loaded != 0) {
        msg("skipping %s: %s", path, why);
        rank_file_free(&f);
        r->nskipped++;
        return -1;
    }
    size_t from = r->nfiles;
    if (r->nfiles == r->files_cap) {
        r->files_cap = r->files_cap ? 2 * r->files_cap : 16;
        r->files = xrealloc(r->files, r->files_cap * sizeof *r->files);
        from = 0;
    }
    r->files[r->nfiles++] = f;
    link_rows(r, from);
    return 0;
}

static void load_file(struct report *r, const char *path)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    if (!root) {
        if (err.line > 0)
            msg("skipping %s: %s (line %d, column %d)", path, err.text, err.line, err.column);
        else
            msg("skipping %s: %s", path, err.text);
        r->nskipped++;
        return;
    }
    if (report_add_document(r, path, root) != 0)
        return;
    /* nccltap-<run>@<host>-<pid>.json -> nccltap-<run>@<host>-<pid>.ops.jsonl */
    char *ops = xasprintf("%.*s.ops.jsonl", (int)(strlen(path) - strlen(".json")), path);
    report_load_ops_log(r, &r->files[r->nfiles - 1], ops);
    free(ops);
}

int report_load(const char *dir, const char *run, struct report *r)
{
    memset(r, 0, sizeof *r);
    r->dir = dir;
    size_t n;
    char **paths = report_files(dir, &n);
    if (!paths) {
        msg("cannot read %s: %s", dir, strerror(errno));
        return -1;
    }
    if (n == 0) {
        msg("no per-rank file (" RANK_FILE_PATTERN ") in %s", dir);
        report_files_free(paths);
        return -1;
    }
    if (report_keep_run(dir, paths, &n, run) != 0) {
        report_files_free(paths);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        load_file(r, paths[i]);
    report_files_free(paths);
    if (r->nfiles == 0) {
        msg("no readable per-rank file in %s", dir);
        report_free(r);
        return -1;
    }
    return 0;
}

void report_free(struct report *r)
{
    for (size_t i = 0; i < r->nfiles; i++)
        rank_file_free(&r->files[i]);
    free(r->files);
    r->files = NULL;
    r->nfiles = r->files_cap = 0;
    report_model_free(r);
    for (size_t i = 0; i < r->nkernels; i++)
        kernel_trace_free(&r->kernels[i]);
    free(r->kernels);
    r->kernels = NULL;
    r->nkernels = 0;
}
