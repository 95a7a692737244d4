/* Reading the per-rank files of a directory: listing them, opening each
 * safely (input_file.c), streaming it through the reader (rank_parse.c),
 * and its per-op log (ops_log_read.c). A file that cannot be read is named with
 * the reason and skipped: a report silently missing a rank is worse than
 * one that says which rank is missing and why. */
#include "load.h"
#include "input_file.h"
#include "input_limits.h"
#include "rank_parse.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
        size_t len = strlen(e->d_name);
        if (fnmatch(RANK_FILE_PATTERN, e->d_name, FNM_PERIOD) != 0 ||
            (len > strlen(HANG_FILE_SUFFIX) &&
             strcmp(e->d_name + len - strlen(HANG_FILE_SUFFIX), HANG_FILE_SUFFIX) == 0))
            continue;
        if (*n + 1 >= cap)
            files = xrealloc(files, (cap *= 2) * sizeof *files);
        files[(*n)++] = xasprintf("%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(files, *n, sizeof *files, cmp_cstr);
    files[*n] = NULL;
    return files;
}

void report_files_free(char **files)
{
    for (char **f = files; f && *f; f++)
        free(*f);
    free(files);
}

/* op_row.file points into r->files: set for files[from..], and for all of
 * them when the array has moved. */
static void link_rows(struct report *r, size_t from)
{
    for (size_t i = from; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].nops; j++)
            r->files[i].ops[j].file = &r->files[i];
}

/* Appends the file that `parse` filled, or names it and counts it skipped. */
static int add_parsed(struct report *r, struct rank_file *f, int parsed, const char *why)
{
    if (parsed != 0) {
        msg("skipping %s: %s", f->path, why);
        rank_file_free(f);
        r->nskipped++;
        return -1;
    }
    size_t from = r->nfiles;
    if (r->nfiles == r->files_cap) {
        r->files_cap = r->files_cap ? 2 * r->files_cap : 16;
        r->files = xrealloc(r->files, r->files_cap * sizeof *r->files);
        from = 0;
    }
    r->files[r->nfiles++] = *f;
    link_rows(r, from);
    return 0;
}

/* Ends the parse, then hands the members kept as JSON to their loaders. */
static int finish(struct report *r, struct rank_parser *p, struct rank_file *f, char *why,
                  size_t why_len)
{
    if (rank_parser_finish(p, why, why_len) != 0)
        return -1;
    if (report_load_callsites(r, rank_parser_kept(p), f, why, why_len) != 0)
        return -1;
    if (report_load_nccl_env(r, rank_parser_kept(p), f, why, why_len) != 0)
        return -1;
    if (report_load_step_marks(r, rank_parser_kept(p), f, why, why_len) != 0)
        return -1;
    return report_load_os(r, rank_parser_kept(p), f, why, why_len);
}

/* The trace loader builds small documents as jansson trees: they are read
 * by the same reader as the files, so that both are held to one format. */
int report_add_document(struct report *r, const char *path, json_t *root)
{
    struct rank_file f;
    memset(&f, 0, sizeof f);
    f.path = xstrdup(path);
    char *text = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    char why[256] = "cannot write the document out";
    int parsed = -1;
    if (text) {
        struct rank_parser *p = rank_parser_new(r, &f);
        parsed = rank_parser_feed(p, text, strlen(text));
        parsed |= finish(r, p, &f, why, sizeof why);
        rank_parser_free(p);
        free(text);
    }
    return add_parsed(r, &f, parsed, why);
}

/* Streams the file at `path` through the reader, a buffer at a time. */
static int parse_file(struct report *r, struct rank_file *f, char *why, size_t why_len)
{
    int fd = input_open(f->path, REPORT_MAX_DOC_BYTES, why, why_len);
    if (fd < 0)
        return -1;
    static char buf[1 << 16];
    struct rank_parser *p = rank_parser_new(r, f);
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(why, why_len, "%s", strerror(errno));
            rc = -1;
            break;
        }
        if (n == 0 || rank_parser_feed(p, buf, (size_t)n) != 0)
            break;
    }
    close(fd);
    if (rc == 0)
        rc = finish(r, p, f, why, why_len);
    rank_parser_free(p);
    return rc;
}

static void load_file(struct report *r, const char *path)
{
    struct rank_file f;
    memset(&f, 0, sizeof f);
    f.path = xstrdup(path);
    char why[256];
    if (add_parsed(r, &f, parse_file(r, &f, why, sizeof why), why) != 0)
        return;
    /* nccltap-<run>@<host>-<pid>.json -> nccltap-<run>@<host>-<pid>.ops, or the
     * .ops.jsonl of NCCLTAP_OPS_JSONL when there is no .ops (both hold the
     * same records). */
    char *ops = xasprintf("%.*s.ops", (int)(strlen(path) - strlen(".json")), path);
    char *jsonl = xasprintf("%s.jsonl", ops);
    if (!report_load_ops_file(r, &r->files[r->nfiles - 1], ops))
        report_load_ops_log(r, &r->files[r->nfiles - 1], jsonl);
    free(jsonl);
    free(ops);
}

/* exec() keeps the pid: the shim names the files of each later image
 * nccltap-<run>@<host>-<pid>+exec<n>.json, beside the earlier image's.
 * Each image is read as a process of its own (its communicators, its
 * calls), and the report says so. */
static void say_exec_images(const struct report *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        const char *base = strrchr(f->path, '/');
        const char *image = strstr(base ? base : f->path, "+exec");
        if (image)
            msg("%s: the program pid %lld on %s exec'd (its image %d): read as a process of its own, "
                "apart from the pid's earlier image",
                f->path, f->pid, f->host ? f->host : "?", atoi(image + strlen("+exec")));
    }
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
    say_exec_images(r);
    report_load_hangs(r);
    report_load_bench(r);
    return 0;
}

void report_free(struct report *r)
{
    for (size_t i = 0; i < r->nfiles; i++)
        rank_file_free(&r->files[i]);
    free(r->files);
    r->files = NULL;
    r->nfiles = r->files_cap = 0;
    report_hangs_free(r);
    free(r->bench);
    r->bench = NULL;
    r->nbench = 0;
    report_model_free(r);
    for (size_t i = 0; i < r->nkernels; i++)
        kernel_trace_free(&r->kernels[i]);
    free(r->kernels);
    r->kernels = NULL;
    r->nkernels = 0;
}
