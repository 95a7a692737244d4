/* `nccltap report TRACE`: an LTTng trace of a run turned into one per-rank
 * document per traced process, then reported like the per-rank files. */
#include "report.h"
#include "trace_doc.h"
#include "trace_events.h"
#include "trace_find.h"
#include "trace_model.h"
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

static int cmp_proc(const void *a, const void *b)
{
    const struct tm_proc *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    return c ? c : (x->vpid > y->vpid) - (x->vpid < y->vpid);
}

int report_load_trace(const char *path, struct report *r)
{
    memset(r, 0, sizeof *r);
    r->dir = path;
    r->from_trace = true;
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
    struct trace_model model;
    memset(&model, 0, sizeof model);
    struct trace_stats stats;
    char *error = NULL;
    int rc = trace_read(dirs, ndirs, trace_model_add, &model, &stats, &error);
    trace_dirs_free(dirs);
    if (rc != 0) {
        msg("%s", error);
        free(error);
        trace_model_free(&model);
        return -1;
    }
    if (stats.events == 0) {
        msg("no nccltap event in the trace in %s (was the shim loaded with "
            "NCCLTAP_LTTNG=1, and nccltap:* enabled?)", path);
        trace_model_free(&model);
        return -1;
    }
    r->discarded = stats.discarded_events;
    if (stats.discarded_events)
        msg("LTTng discarded %" PRIu64 " events: rerun with --blocking", stats.discarded_events);
    if (stats.discarded_packets)
        msg("LTTng lost %" PRIu64 " packets of events: rerun with --blocking",
            stats.discarded_packets);

    /* By host and pid, as files would be listed. */
    qsort(model.procs, model.nprocs, sizeof *model.procs, cmp_proc);
    for (size_t i = 0; i < model.nprocs; i++) {
        struct tm_proc *p = &model.procs[i];
        char *name = xasprintf("%s (host %s, pid %lld)", path, p->host, (long long)p->vpid);
        json_t *doc = trace_doc(p);
        if (doc)
            report_add_document(r, name, doc);
        else
            msg("cannot build the document of %s", name);
        free(name);
    }
    trace_model_free(&model);
    if (r->nfiles == 0) {
        msg("no process could be read from the trace in %s", path);
        report_free(r);
        return -1;
    }
    return 0;
}
