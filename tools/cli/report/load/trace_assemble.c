#include "trace_assemble.h"
#include "load.h"
#include "record_check.h"
#include "trace_doc.h"
#include "util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int cmp_proc(const void *a, const void *b)
{
    const struct tm_proc *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    return c ? c : (x->vpid > y->vpid) - (x->vpid < y->vpid);
}

static int cmp_done(const void *a, const void *b)
{
    const struct tm_done *x = a, *y = b;
    if (x->comm_id != y->comm_id)
        return x->comm_id < y->comm_id ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Completions done[0..n), sorted by (communicator, rank, sequence number),
 * each joined to its op_enqueue (p->ops, sorted the same way: one pass)
 * into f's op events; an execution of a captured call joins the call's. */
static void join(struct report *r, struct rank_file *f, const struct tm_proc *p,
                 const struct tm_done *done, size_t n, uint64_t *rejected)
{
    size_t i = 0;
    for (size_t j = 0; j < n; j++) {
        const struct tm_done *d = &done[j];
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
            .bytes = o->bytes,
            .group_ops = d->group_ops ? (uint16_t)(d->group_ops > UINT16_MAX ? UINT16_MAX : d->group_ops) : 1,
            .tid = o->tid, .stream = rank_file_stream(f, o->stream), .start_ns = d->start_ns, .end_ns = d->end_ns,
            .flags = (d->stamped ? OP_STAMPED : 0) | (d->stamped && d->start_at_call ? OP_START_AT_CALL : 0),
            .start_span_us = d->stamped ? op_span_us(d->start_span_ns) : 0,
            .end_span_us = d->stamped ? op_span_us(d->end_span_ns) : 0,
            /* A launch is no call: the trace does not say when it was. */
            .enqueue_ns = d->replay ? 0 : o->ts_ns,
        };
        if (!op_set_group_replay(&f->events[f->nevents - 1], o->group_id, d->replay)) {
            f->nevents--;
            (*rejected)++;
            continue;
        }
        rank_file_add_tag(f, o->comm_id, o->rank, o->seq, o->user_tag);
    }
}

/* The timed ops of p (an op_enqueue with its op_complete) and the timed
 * executions of its captured ops as the op events of the process just
 * added for it. trace_doc_add() left the ops and the calls' completions
 * sorted by (communicator, rank, sequence number). */
static void add_events(struct report *r, struct tm_proc *p)
{
    struct rank_file *f = &r->files[r->nfiles - 1];
    size_t all = p->ndone + p->nreplays;
    f->events = xcalloc(all ? all : 1, sizeof *f->events);
    uint64_t rejected = 0;
    join(r, f, p, p->done, p->ndone, &rejected);
    if (p->nreplays) {
        qsort(p->replays, p->nreplays, sizeof *p->replays, cmp_done);
        join(r, f, p, p->replays, p->nreplays, &rejected);
    }
    report_rejected(r, f->path, rejected, "op_complete event",
                    "a grouped execution of a captured call, or an id past 2^62");
    report_check_events(r, f, f->path);
    report_sort_events(f);
}


/* p's hang events as the hang report of the process just added for it. */
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
            .op = report_intern(r, t->op), .started = t->started, .untimed = t->untimed,
            .pending_s = (double)t->pending_ns / 1e9,
            .site = t->site, .dtype = "", .root = -1,  /* the event has no datatype, reduction or root */
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

void trace_assembly_init(struct trace_assembly *l, struct report *r)
{
    memset(l, 0, sizeof *l);
    l->r = r;
}

void trace_assembly_add(const struct tev *e, void *assembly)
{
    struct trace_assembly *l = assembly;
    if (tev_is_kernel(e->kind))
        trace_kernel_add(&l->kernel, l->r, e);
    else
        trace_model_add(e, &l->model);
}

void trace_assembly_finish(struct trace_assembly *l, const char *path)
{
    struct report *r = l->r;
    /* By host and pid, as files would be listed. */
    if (l->model.nprocs)  /* qsort's array may not be NULL, even empty */
        qsort(l->model.procs, l->model.nprocs, sizeof *l->model.procs, cmp_proc);
    for (size_t i = 0; i < l->model.nprocs; i++) {
        struct tm_proc *p = &l->model.procs[i];
        char *name = xasprintf("%s (host %s, pid %lld)", path, p->host, (long long)p->vpid);
        if (trace_doc_add(r, p, name) == 0) {
            add_events(r, p);
            add_hangs(r, p);
        }
        free(name);
    }
    trace_model_free(&l->model);
    trace_kernel_take(&l->kernel, r);
}

void trace_assembly_discard(struct trace_assembly *l)
{
    trace_model_free(&l->model);
    trace_kernel_free(&l->kernel);
}
