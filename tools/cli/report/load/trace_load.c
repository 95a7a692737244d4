/* `nccltap report TRACE`: an LTTng trace of a run turned into one per-rank
 * document per traced process, then reported like the per-rank files. */
#include "load.h"
#include "trace_doc.h"
#include "record_check.h"
#include "trace_events.h"
#include "trace_find.h"
#include "trace_kernel.h"
#include "trace_metadata.h"
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

/* The timed ops of p (an op_enqueue with its op_complete) as the op events
 * of the document just added for it. trace_doc() left both sorted by
 * (communicator, rank, sequence number), so one pass joins them. */
static void add_events(struct report *r, const struct tm_proc *p)
{
    struct rank_file *f = &r->files[r->nfiles - 1];
    f->events = xcalloc(p->ndone ? p->ndone : 1, sizeof *f->events);
    size_t i = 0;
    for (size_t j = 0; j < p->ndone; j++) {
        const struct tm_done *d = &p->done[j];
        while (i < p->nops && (p->ops[i].comm_id < d->comm_id ||
               (p->ops[i].comm_id == d->comm_id && (p->ops[i].rank < d->rank ||
                (p->ops[i].rank == d->rank && p->ops[i].seq < d->seq)))))
            i++;
        if (i == p->nops || p->ops[i].comm_id != d->comm_id || p->ops[i].rank != d->rank ||
            p->ops[i].seq != d->seq)
            continue;  /* its op_enqueue was not recorded */
        const struct tm_op *o = &p->ops[i];
        f->events[f->nevents++] = (struct op_event){
            .comm = o->comm_id, .seq = o->seq, .rank = o->rank, .peer = o->peer,
            .op = report_name_index(r, o->op), .dtype = report_name_index(r, o->dtype),
            .bytes = o->bytes, .group = o->group_id,
            .group_ops = d->group_ops ? (uint16_t)(d->group_ops > UINT16_MAX ? UINT16_MAX : d->group_ops) : 1,
            .tid = o->tid, .stream = o->stream, .enqueue_ns = o->ts_ns, .start_ns = d->start_ns,
            .end_ns = d->end_ns,
        };
    }
    report_check_events(r, f, f->path);
}

/* What the reader fills: nccltap's processes, and the kernels. */
struct loading {
    struct trace_model model;
    struct trace_kernel kernel;
    struct report *r;
};

static void add_event(const struct tev *e, void *data)
{
    struct loading *l = data;
    if (tev_is_kernel(e->kind))
        trace_kernel_add(&l->kernel, l->r, e);
    else
        trace_model_add(e, &l->model);
}

/* p's hang events as the hang report of the document just added for it. */
static void add_hangs(struct report *r, const struct tm_proc *p)
{
    if (!p->nhangs)
        return;
    struct hang_file h = { .file = r->nfiles - 1, .comms = xcalloc(p->nhangs, sizeof *h.comms) };
    size_t rejected = 0;
    const char *first = NULL;
    for (size_t i = 0; i < p->nhangs; i++) {
        const struct tm_hang *t = &p->hangs[i];
        h.reports = t->reports > h.reports ? t->reports : h.reports;
        struct hang_comm *c = &h.comms[h.ncomms];
        *c = (struct hang_comm){
            .comm = t->comm_id, .rank = t->rank, .nranks = t->nranks, .issued = t->issued,
            .last_done = (int64_t)t->done_seq - 1, .pending = true, .seq = t->seq, .bytes = t->bytes,
            .op = report_intern(r, t->op), .started = t->started, .pending_s = (double)t->pending_ns / 1e9,
            .site = t->site,
        };
        const char *bad = hang_comm_invalid(c);
        if (!bad)
            h.ncomms++;
        else if (rejected++ == 0)
            first = bad;
    }
    report_rejected(r, r->files[r->nfiles - 1].path, rejected, "hang event", first);
    r->hangs = xrealloc(r->hangs, (r->nhangs + 1) * sizeof *r->hangs);
    r->hangs[r->nhangs++] = h;
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
    struct loading l;
    memset(&l, 0, sizeof l);
    l.r = r;
    struct trace_model *model = &l.model;
    struct trace_stats stats;
    char *error = NULL;
    int rc = trace_read(dirs, ndirs, add_event, &l, &stats, &error);
    trace_dirs_free(dirs);
    if (rc != 0 || stats.events == 0) {
        if (rc != 0)
            msg("%s", error);
        else
            msg("no nccltap event in the trace in %s (was the shim loaded with "
                "NCCLTAP_LTTNG=1, and nccltap:* enabled?)", path);
        free(error);
        trace_model_free(model);
        trace_kernel_free(&l.kernel);
        report_free(r);  /* the names the kernel events interned */
        return -1;
    }
    r->discarded = stats.discarded_events;
    if (stats.discarded_events)
        msg("LTTng discarded %" PRIu64 " events: rerun with --blocking", stats.discarded_events);
    if (stats.discarded_packets)
        msg("LTTng lost %" PRIu64 " packets of events: rerun with --blocking",
            stats.discarded_packets);

    /* By host and pid, as files would be listed. */
    qsort(model->procs, model->nprocs, sizeof *model->procs, cmp_proc);
    for (size_t i = 0; i < model->nprocs; i++) {
        struct tm_proc *p = &model->procs[i];
        char *name = xasprintf("%s (host %s, pid %lld)", path, p->host, (long long)p->vpid);
        json_t *doc = trace_doc(p);
        if (doc && report_add_document(r, name, doc) == 0) {
            add_events(r, p);
            add_hangs(r, p);
        }
        else if (!doc)
            msg("cannot build the document of %s", name);
        free(name);
    }
    trace_model_free(model);
    trace_kernel_take(&l.kernel, r);
    if (r->nfiles == 0) {
        msg("no process could be read from the trace in %s", path);
        report_free(r);
        return -1;
    }
    return 0;
}
