/* `nccltap report TRACE`: an LTTng trace of a run turned into one struct
 * rank_file per traced process, filled as the per-rank files are, then
 * reported like them. */
#include "load.h"
#include "trace_assemble.h"
#include "trace_events.h"
#include "trace_find.h"
#include "trace_metadata.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

bool report_path_is_trace(const char *path)
{
    size_t n;
    report_files_free(report_files(path, &n));
    if (n > 0)
        return false;  /* per-rank files are the shim's own numbers: they win */
    char **dirs = trace_dirs_find(path, &n);
    trace_dirs_free(dirs);
    return dirs && n > 0;
}

/* Leaves out of dirs (NULL-terminated, *n of them) the traces whose
 * metadata babeltrace2 cannot be given, each named on stderr. Returns how
 * many are left. */
static size_t drop_damaged(char **dirs, size_t *n)
{
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        char *why = trace_metadata_damage(dirs[i]);
        if (!why) {
            dirs[kept++] = dirs[i];
            continue;
        }
        msg("the trace in %s is damaged and is not read: its metadata %s", dirs[i], why);
        free(why);
        free(dirs[i]);
    }
    dirs[kept] = NULL;
    return *n = kept;
}

static void ignore(const struct tev *e, void *data)
{
    (void)e;
    (void)data;
}

/* Leaves out of dirs (NULL-terminated, *n of them) the traces that the
 * reader dies on alone, each named on stderr: one child each. Returns how
 * many are left. */
static size_t drop_dying(char **dirs, size_t *n)
{
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        struct trace_stats stats;
        char *error = NULL;
        if (trace_read(&dirs[i], 1, ignore, NULL, &stats, &error) == TRACE_READ_DIED) {
            msg("%s: the trace is damaged and is left out", error);
            free(dirs[i]);
        } else {
            dirs[kept++] = dirs[i];
        }
        free(error);
    }
    dirs[kept] = NULL;
    return *n = kept;
}

static void report_begin(struct report *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->dir = path;
    r->from_trace = true;
}

int report_load_trace(const char *path, struct report *r)
{
    report_begin(r, path);
    size_t ndirs;
    char **dirs = trace_dirs_find(path, &ndirs);
    if (!dirs) {
        msg("cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    if (ndirs == 0) {
        msg("no CTF trace (a directory with a `metadata` file) in %s", path);
        trace_dirs_free(dirs);
        return -1;
    }
    if (drop_damaged(dirs, &ndirs) == 0) {
        msg("no trace in %s can be read", path);
        trace_dirs_free(dirs);
        return -1;
    }
    /* One run: processes of two runs would be read as one job. */
    size_t others;
    char *other_runs = trace_dirs_keep_newest(dirs, &ndirs, &others);
    if (other_runs) {
        size_t len;
        const char *root = trace_run_root(dirs[0], &len);
        msg("%s holds %zu other traced run%s (%s); reading the newest, %.*s", path, others,
            others == 1 ? "" : "s", other_runs, (int)len, root);
        free(other_runs);
    }
    struct trace_assembly l;
    trace_assembly_init(&l, r);
    struct trace_stats stats;
    char *error = NULL;
    int rc = trace_read(dirs, ndirs, trace_assembly_add, &l, &stats, &error);
    if (rc == TRACE_READ_DIED) {
        /* A damaged trace: which one, each read alone; then the others
         * again, from the start (the events read so far are of all). */
        msg("%s; reading each trace alone to find the damaged one", error);
        free(error);
        error = NULL;
        trace_assembly_discard(&l);
        report_free(r);
        report_begin(r, path);
        if (drop_dying(dirs, &ndirs) == 0) {
            msg("no trace in %s can be read", path);
            trace_dirs_free(dirs);
            return -1;
        }
        trace_assembly_init(&l, r);
        rc = trace_read(dirs, ndirs, trace_assembly_add, &l, &stats, &error);
    }
    trace_dirs_free(dirs);
    if (rc != 0 || stats.events == 0) {
        if (rc != 0)
            msg("%s", error);
        else
            msg("no nccltap event in the trace in %s (was the shim loaded with "
                "NCCLTAP_LTTNG=1, and nccltap:* enabled?)", path);
        free(error);
        trace_assembly_discard(&l);
        report_free(r);  /* the names the kernel events interned */
        return -1;
    }
    r->discarded = stats.discarded_events;
    if (stats.discarded_events)
        msg("LTTng discarded %" PRIu64 " events: rerun with --blocking", stats.discarded_events);
    if (stats.discarded_packets)
        msg("LTTng lost %" PRIu64 " packets of events: rerun with --blocking",
            stats.discarded_packets);

    trace_assembly_finish(&l, path);
    if (r->nfiles == 0) {
        msg("no process could be read from the trace in %s", path);
        report_free(r);
        return -1;
    }
    return 0;
}
