#include "trace_doc.h"
#include "trace_rows.h"
#include "util.h"
#include "nccl/nccl_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "2.30.0" from an NCCL_VERSION_CODE; releases up to 2.8 used
 * X*1000 + Y*100 + Z, later ones X*10000 + Y*100 + Z. */
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

/* Distinct, ascending. */
static json_t *ranks_json(const struct tm_proc *p)
{
    int *ranks = xcalloc(p->ncomms, sizeof *ranks);
    size_t n = 0;
    for (size_t i = 0; i < p->ncomms; i++)
        if (is_root(&p->comms[i]))
            ranks[n++] = p->comms[i].rank;
    qsort(ranks, n, sizeof *ranks, cmp_int);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        if (i == 0 || ranks[i] != ranks[i - 1])
            json_array_append_new(a, json_integer(ranks[i]));
    free(ranks);
    return a;
}

static json_t *comms_json(const struct tm_proc *p)
{
    json_t *a = json_array();
    for (size_t i = 0; i < p->ncomms; i++) {
        const struct tm_comm *c = &p->comms[i];
        char id[17], parent[17] = "";
        snprintf(id, sizeof id, "%016llx", (unsigned long long)c->id);
        if (c->parent_id)
            snprintf(parent, sizeof parent, "%016llx", (unsigned long long)c->parent_id);
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:s, s:I, s:o}",
            "id", id, "parent", parent, "name", c->name, "rank", c->rank,
            "nranks", c->nranks, "device", c->device, "origin", c->origin,
            "state", c->state, "calls", (json_int_t)c->calls,
            "init_ms", c->init_ns ? json_real((double)c->init_ns * 1e-6) : json_null()));
    }
    return a;
}

static int cmp_interval(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
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
    if (n > 1)
        qsort(iv, n, sizeof *iv, cmp_interval);
    uint64_t busy = 0, start = 0, end = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || iv[i][0] > end) {
            busy += end - start;
            start = iv[i][0];
            end = iv[i][1];
        } else if (iv[i][1] > end) {
            end = iv[i][1];
        }
    }
    busy += end - start;
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
static void add_os(const struct tm_proc *p, json_t *doc)
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
    json_object_set_new(doc, "os", json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:o, s:o}", "source", "lttng",
                                             "mode", "switch", "note", "", "lost", (json_int_t)0, "dropped",
                                             (json_int_t)p->offs_dropped, "unfollowed", (json_int_t)0,
                                             "threads", threads, "off", off));
}

json_t *trace_doc(struct tm_proc *p)
{
    struct trace_row_totals t;
    json_t *by_site = json_object();
    json_t *ops = trace_rows(p, &t, by_site);
    /* Every call took a sequence number, also those the trace has no
     * op_enqueue for (failed calls): the highest one counts them all. */
    uint64_t calls = 0;
    for (size_t i = 0; i < p->ncomms; i++)
        calls += p->comms[i].calls;
    char version[32];
    tap_nccl_version_str(p->nccl_version, version, sizeof version);
    double wall_s = p->last_ns > p->first_ns ? (double)(p->last_ns - p->first_ns) * 1e-9 : 0.0;
    double busy_s, timed_s;
    busy_time(p, &busy_s, &timed_s);
    json_t *doc = json_pack(
        "{s:s, s:b, s:s, s:I, s:s, s:i, s:s, s:f, s:f, s:f, s:o, s:o, s:o, s:I, s:o, s:I, s:o,"
        " s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}}",
        "format", "nccltap-rank/1", "final", 1, "host", p->host, "pid", (json_int_t)p->vpid,
        "job", "", "nccl_version", p->nccl_version, "nccl_version_str", version,
        "wall_s", wall_s, "nccl_busy_s", busy_s, "nccl_timed_s", timed_s,
        "ranks", ranks_json(p), "comms", comms_json(p), "ops", ops,
        "callsite_depth", (json_int_t)p->callsite_depth, "callsites", callsites_json(p, by_site),
        "callsite_python_unread", (json_int_t)p->python_unread,
        "modules", modules_json(p),
        "totals", "calls", (json_int_t)calls, "dropped", (json_int_t)0,
        "timed", (json_int_t)t.timed, "stamped", (json_int_t)t.stamped, "untimed", (json_int_t)0,
        "captured", (json_int_t)p->captured, "pending", (json_int_t)0,
        "failed", (json_int_t)t.failed, "simulated", (json_int_t)t.simulated,
        "lost", (json_int_t)0);
    if (doc)
        add_os(p, doc);
    return doc;
}
