/* A traced process into the model (trace_doc.h): what a rank file says of
 * its process, made from the process's events and filled through
 * rank_fill.h. */
#include "trace_doc.h"
#include "intervals.h"
#include "rank_fill.h"
#include "trace_rows.h"
#include "util.h"
#include "nccl/nccl_ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Created by an init call rather than split from another communicator:
 * the ranks a process "holds", as the shim lists them. */
static bool is_root(const struct tm_comm *c)
{
    static const char *const roots[] = { "init", "initall", "config", "scalable" };
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
        if (strcmp(c->origin, roots[i]) == 0)
            return true;
    return false;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The ranks of its root communicators, distinct, ascending. */
static void fill_ranks(struct rank_fill *w, const struct tm_proc *p)
{
    int *ranks = xcalloc(p->ncomms ? p->ncomms : 1, sizeof *ranks);
    size_t n = 0;
    for (size_t i = 0; i < p->ncomms; i++)
        if (is_root(&p->comms[i]))
            ranks[n++] = p->comms[i].rank;
    if (n > 1)
        qsort(ranks, n, sizeof *ranks, cmp_int);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || ranks[i] != ranks[i - 1])
            rank_fill_rank(w, ranks[i]);
    free(ranks);
}

/* A communicator id as the rank file spells it: 16 hex digits, interned. */
static const char *comm_id(struct report *r, uint64_t id)
{
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)id);
    return report_intern(r, hex);
}

/* The communicators, each as the shim lists it; the trace records no
 * ncclConfig_t (config stays unset, f->config_read false). */
static void fill_comms(struct rank_fill *w, const struct tm_proc *p)
{
    for (size_t i = 0; i < p->ncomms; i++) {
        const struct tm_comm *c = &p->comms[i];
        struct comm_entry *e = rank_fill_comm(w);
        e->id = comm_id(w->r, c->id);
        e->parent = c->parent_id ? comm_id(w->r, c->parent_id) : report_intern(w->r, "");
        e->name = report_intern(w->r, c->name);
        e->origin = report_intern(w->r, c->origin);
        e->state = report_intern(w->r, c->state);
        e->rank = c->rank;
        e->nranks = c->nranks;
        e->calls = c->calls;
        e->init_ms = c->init_ns ? (double)c->init_ns * 1e-6 : NAN;
        rank_fill_comm_check(w);
    }
}

/* What the shim writes as nccl_busy_s and nccl_timed_s (preload/reducer/
 * busy.c): the union of the timed intervals (the members of a group share
 * one), and their durations summed, a group once. */
static void busy_time(const struct tm_proc *p, double *busy_s, double *timed_s)
{
    size_t all = p->ndone + p->nreplays;  /* executions of captured calls too, as the shim's */
    uint64_t (*iv)[2] = xcalloc(all ? all : 1, sizeof *iv);
    size_t n = 0;
    double timed = 0.0;
    for (size_t i = 0; i < all; i++) {
        const struct tm_done *d = i < p->ndone ? &p->done[i] : &p->replays[i - p->ndone];
        if (!d->start_ns || d->end_ns <= d->start_ns)
            continue;
        iv[n][0] = d->start_ns;
        iv[n][1] = d->end_ns;
        n++;
        timed += (double)(d->end_ns - d->start_ns) / (double)(d->group_ops ? d->group_ops : 1);
    }
    uint64_t busy;
    intervals_merge(iv, n, &busy);
    free(iv);
    *busy_s = (double)busy * 1e-9;
    *timed_s = timed * 1e-9;
}

static json_t *address(uint64_t a)
{
    char hex[24];
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)a);
    return json_string(hex);
}

static const struct tm_pyframe *pyframe(const struct tm_proc *p, uint64_t id)
{
    for (size_t i = 0; i < p->npyframes; i++)
        if (p->pyframes[i].id == id)
            return &p->pyframes[i];
    return NULL;
}

/* "python" as the per-rank file has it: the site's Python frames, from
 * their python_frame events. A site naming a frame the trace has no event
 * for (LTTng discarded it) is left at its native frames, and said. */
static void add_python(const struct tm_proc *p, const struct tm_site *s, json_t *site)
{
    if (!s->npython)
        return;
    json_t *a = json_array();
    for (size_t k = 0; k < s->npython; k++) {
        const struct tm_pyframe *f = pyframe(p, s->python[k]);
        if (!f) {
            msg("warning: process %lld: call site %u names Python frame %llu, which the trace has no "
                "python_frame event for (discarded?): the site is shown at its native frames",
                (long long)p->vpid, s->id, (unsigned long long)s->python[k]);
            json_decref(a);
            return;
        }
        json_array_append_new(a, json_pack("{s:s, s:I, s:s}", "file", f->file, "line", (json_int_t)f->line,
                                           "function", f->function));
    }
    json_object_set_new(site, "python", a);
}

/* "callsites" as the per-rank file has them: each callsite event's frames
 * and Python frames with the site's rows; calls at sites the trace has no
 * event for (site 0: the shim's table was full) with no frames. None when
 * the process had call sites off. Takes by_site. */
static json_t *callsites_json(const struct tm_proc *p, json_t *by_site)
{
    json_t *a = json_array();
    for (size_t i = 0; p->callsite_depth && i < p->nsites; i++) {
        const struct tm_site *s = &p->sites[i];
        char id[16];
        snprintf(id, sizeof id, "%u", s->id);
        json_t *frames = json_array(), *rows = json_object_get(by_site, id);
        for (size_t k = 0; k < s->nframes; k++)
            json_array_append_new(frames, address(s->frames[k]));
        json_t *site = json_pack("{s:I, s:o, s:o}", "id", (json_int_t)s->id, "frames", frames, "rows",
                                 rows ? json_incref(rows) : json_array());
        add_python(p, s, site);
        json_array_append_new(a, site);
        json_object_del(by_site, id);
    }
    const char *id;
    json_t *rows;
    json_object_foreach(by_site, id, rows)
        if (p->callsite_depth)
            json_array_append_new(a, json_pack("{s:I, s:[], s:O}", "id", (json_int_t)strtoull(id, NULL, 10),
                                               "frames", "rows", rows));
    json_decref(by_site);
    return a;
}

static json_t *modules_json(const struct tm_proc *p)
{
    json_t *a = json_array();
    for (size_t i = 0; i < p->nmodules; i++) {
        const struct tm_module *m = &p->modules[i];
        json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:o, s:s}", "path", m->path, "base",
                                           address(m->base), "start", address(m->start), "end",
                                           address(m->end), "build_id", m->build_id));
    }
    return a;
}

/* Threads by tid, then by when they were seen. */
static int cmp_thread(const void *a, const void *b)
{
    const struct tm_thread *x = *(const struct tm_thread *const *)a, *y = *(const struct tm_thread *const *)b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* "os" as the per-rank file has it (load/os_records.c), from the
 * process's os_offcpu events; none when it has none. A thread is listed
 * once, by tid, with the name its first record gave. */
static void add_os(const struct tm_proc *p, json_t *kept)
{
    if (!p->noffs)
        return;
    json_t *threads = json_array(), *off = json_array();
    const struct tm_thread **seen = xcalloc(p->nos_threads + 1, sizeof *seen);
    for (size_t i = 0; i < p->nos_threads; i++)
        seen[i] = &p->os_threads[i];
    if (p->nos_threads)
        qsort(seen, p->nos_threads, sizeof *seen, cmp_thread);
    for (size_t i = 0; i < p->nos_threads; i++)
        if (!i || seen[i - 1]->tid != seen[i]->tid)
            json_array_append_new(threads, json_pack("{s:I, s:s, s:b}", "tid", (json_int_t)seen[i]->tid,
                                                     "comm", seen[i]->comm, "nccl",
                                                     strncmp(seen[i]->comm, "NCCL", 4) == 0));
    free(seen);
    for (size_t i = 0; i < p->noffs; i++) {
        const struct tm_off *o = &p->offs[i];
        json_array_append_new(off, json_pack("[I, I, I, I, i]", (json_int_t)o->tid, (json_int_t)o->cpu,
                                             (json_int_t)o->out_ns, (json_int_t)o->in_ns, o->preempted));
    }
    json_object_set_new(kept, "os", json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:o, s:o}", "source", "lttng",
                                             "mode", "switch", "note", "", "lost", (json_int_t)0, "dropped",
                                             (json_int_t)p->offs_dropped, "unfollowed", (json_int_t)0,
                                             "threads", threads, "off", off));
}

/* What the process's file says of it as a whole, and its totals. */
static void fill_process(struct rank_fill *w, const struct tm_proc *p, const struct trace_row_totals *t)
{
    struct rank_file *f = w->f;
    char version[32];
    tap_nccl_version_str(p->nccl_version, version, sizeof version);
    f->host = report_intern(w->r, p->host);
    f->pid = p->vpid;
    f->job = report_intern(w->r, "");
    f->nccl_version = report_intern(w->r, version);
    f->wall_s = p->last_ns > p->first_ns ? (double)(p->last_ns - p->first_ns) * 1e-9 : 0.0;
    busy_time(p, &f->nccl_busy_s, &f->nccl_timed_s);
    /* Every call took a sequence number, also those the trace has no
     * op_enqueue for (failed calls): the highest one counts them all. */
    for (size_t i = 0; i < p->ncomms; i++)
        f->totals.calls += p->comms[i].calls;
    f->totals.timed = t->timed;
    f->totals.stamped = t->stamped;
    f->totals.captured = p->captured;
    f->totals.failed = t->failed;
    f->totals.simulated = t->simulated;
    f->totals.in_flight = t->in_flight;
}

/* "steps" as a rank file has it: the marks made, and the last
 * STEP_MARKS_KEPT of their times. */
#define STEP_MARKS_KEPT 16384
static json_t *steps_json(const struct tm_proc *p)
{
    json_t *marks = json_array();
    size_t from = p->nstep_marks > STEP_MARKS_KEPT ? p->nstep_marks - STEP_MARKS_KEPT : 0;
    for (size_t i = from; i < p->nstep_marks; i++)
        json_array_append_new(marks, json_integer((json_int_t)p->step_marks[i]));
    uint64_t marked = p->steps_marked > p->nstep_marks ? p->steps_marked : p->nstep_marks;
    return json_pack("{s:I, s:o}", "marked", (json_int_t)marked, "marks_ns", marks);
}

/* "entry_points" as a rank file has it: {name: {calls, failed}}. */
static json_t *entries_json(const struct tm_proc *p)
{
    json_t *o = json_object();
    for (size_t i = 0; i < p->nentries; i++)
        json_object_set_new(o, p->entries[i].name, json_pack("{s:I, s:I}", "calls", (json_int_t)p->entries[i].calls,
                                                            "failed", (json_int_t)p->entries[i].failed));
    return o;
}

/* The members that a rank file's reader keeps as JSON, as the rank file
 * has them (rank_parse.c's kept_keys): call sites, modules and the OS
 * records, for the loaders that read them (rank_fill_kept). Takes
 * by_site. NULL when jansson cannot build it. */
static json_t *kept_json(const struct tm_proc *p, json_t *by_site)
{
    json_t *kept = json_pack("{s:I, s:o, s:I, s:o}", "callsite_depth", (json_int_t)p->callsite_depth,
                             "callsites", callsites_json(p, by_site),
                             "callsite_python_unread", (json_int_t)p->python_unread,
                             "modules", modules_json(p));
    if (kept)
        add_os(p, kept);
    if (kept && p->steps_marked)
        json_object_set_new(kept, "steps", steps_json(p));
    if (kept && p->nentries)
        json_object_set_new(kept, "entry_points", entries_json(p));
    return kept;
}

int trace_doc_add(struct report *r, struct tm_proc *p, const char *path)
{
    struct rank_file f;
    memset(&f, 0, sizeof f);
    f.path = xstrdup(path);
    struct rank_fill w;
    rank_fill_begin(&w, r, &f);
    struct trace_row_totals t;
    json_t *by_site = json_object();
    /* In the order a rank file lists them: the rows of the "(overflow)"
     * communicator are known by its entry. */
    fill_ranks(&w, p);
    fill_comms(&w, p);
    trace_rows(&w, p, &t, by_site);
    fill_process(&w, p, &t);
    rank_fill_end(&w);
    json_t *kept = kept_json(p, by_site);
    char why[256] = "cannot build its call sites as JSON";
    int filled = kept ? rank_fill_kept(&w, kept, why, sizeof why) : -1;
    json_decref(kept);
    return rank_fill_add(r, &f, filled, why);
}
