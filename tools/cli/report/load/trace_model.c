#include "trace_model.h"
#include "util.h"

#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* `p` with room for element n, doubled when full. */

/* An int field of an event; INT_MIN (out of every range: the loaders'
 * range checks reject it) for a value that does not fit, rather than its
 * low bits, which may look like a valid rank. */
static int int_field(int64_t v)
{
    return v >= INT_MIN && v <= INT_MAX ? (int)v : INT_MIN;
}

/* The one copy of an op or datatype name: thousands of ops share a dozen. */
static const char *intern(struct trace_model *m, const char *s)
{
    for (size_t i = 0; i < m->nstrings; i++)
        if (strcmp(m->strings[i], s) == 0)
            return m->strings[i];
    m->strings = xgrow(m->strings, &m->cap_strings, m->nstrings, sizeof *m->strings, 16);
    return m->strings[m->nstrings++] = xstrdup(s);
}

/* The enumeration's label, or "unknown(N)" as the shim names a value it
 * has no name for. */
static const char *label(struct trace_model *m, const char *l, int64_t value)
{
    if (l[0])
        return intern(m, l);
    char buf[32];
    snprintf(buf, sizeof buf, "unknown(%lld)", (long long)value);
    return intern(m, buf);
}

static struct tm_proc *process(struct trace_model *m, const char *host, int64_t vpid)
{
    /* Events come in runs from one process: the last one first. */
    size_t last = m->last_proc;
    if (last < m->nprocs && m->procs[last].vpid == vpid && strcmp(m->procs[last].host, host) == 0)
        return &m->procs[last];
    for (size_t i = 0; i < m->nprocs; i++)
        if (m->procs[i].vpid == vpid && strcmp(m->procs[i].host, host) == 0)
            return &m->procs[m->last_proc = i];
    m->procs = xgrow(m->procs, &m->cap_procs, m->nprocs, sizeof *m->procs, 16);
    struct tm_proc *p = &m->procs[m->last_proc = m->nprocs++];
    memset(p, 0, sizeof *p);
    p->host = xstrdup(host);
    p->vpid = vpid;
    for (size_t i = 0; i < m->ndeclared; i++)
        if (strcmp(m->declared[i].host, host) == 0) {
            p->completions_recorded = m->declared[i].op_complete;
            p->ends_recorded = m->declared[i].process_end;
        }
    return p;
}

/* A trace declares an event (TEV_DECLARED): for its host's processes,
 * those seen so far and those to come. */
static void on_declared(struct trace_model *m, const struct tev *e)
{
    size_t i = 0;
    while (i < m->ndeclared && strcmp(m->declared[i].host, e->host) != 0)
        i++;
    if (i == m->ndeclared) {
        m->declared = xgrow(m->declared, &m->cap_declared, m->ndeclared, sizeof *m->declared, 4);
        m->declared[m->ndeclared++] = (struct tm_declared){ xstrdup(e->host), false, false };
    }
    struct tm_declared *d = &m->declared[i];
    d->op_complete |= strcmp(e->name, "op_complete") == 0;
    d->process_end |= strcmp(e->name, "process_end") == 0;
    for (size_t k = 0; k < m->nprocs; k++)
        if (strcmp(m->procs[k].host, e->host) == 0) {
            m->procs[k].completions_recorded = d->op_complete;
            m->procs[k].ends_recorded = d->process_end;
        }
}

/* The communicator (id, rank) of the process; created on first sight, also
 * from an op when its comm_init is not in the trace. */
static struct tm_comm *comm(struct tm_proc *p, uint64_t id, int rank)
{
    for (size_t i = 0; i < p->ncomms; i++)
        if (p->comms[i].id == id && p->comms[i].rank == rank)
            return &p->comms[i];
    p->comms = xgrow(p->comms, &p->cap_comms, p->ncomms, sizeof *p->comms, 16);
    struct tm_comm *c = &p->comms[p->ncomms++];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->rank = rank;
    c->name = xstrdup("");
    c->origin = xstrdup("unregistered");
    c->state = "alive";
    return c;
}

static void saw_seq(struct tm_proc *p, const struct tev *e)
{
    struct tm_comm *c = comm(p, e->comm_id, int_field(e->rank));
    if (e->seq + 1 > c->calls)
        c->calls = e->seq + 1;
}

static void on_comm_init(struct tm_proc *p, const struct tev *e)
{
    struct tm_comm *c = comm(p, e->comm_id, int_field(e->rank));
    c->parent_id = e->parent_id;
    c->nranks = int_field(e->nranks);
    c->device = (int)e->device;
    c->init_ns = e->init_ns;
    free(c->name);
    free(c->origin);
    c->name = xstrdup(e->name);
    c->origin = xstrdup(e->origin);
    if (!p->nccl_version)
        p->nccl_version = (int)e->nccl_version;
}

static void on_comm_destroy(struct tm_proc *p, const struct tev *e)
{
    static const char *const states[][2] = {
        { "finalize", "finalized" }, { "destroy", "destroyed" }, { "abort", "aborted" },
    };
    struct tm_comm *c = comm(p, e->comm_id, int_field(e->rank));
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
        if (strcmp(e->how, states[i][0]) == 0)
            c->state = states[i][1];
}

static void on_op(struct trace_model *m, struct tm_proc *p, const struct tev *e)
{
    saw_seq(p, e);
    p->ops = xgrow(p->ops, &p->cap_ops, p->nops, sizeof *p->ops, 16);
    p->ops[p->nops++] = (struct tm_op){
        .comm_id = e->comm_id, .seq = e->seq, .count = e->count, .bytes = e->bytes,
        .group_id = e->group_id, .stream = e->stream, .ts_ns = e->ts_ns,
        .rank = int_field(e->rank), .peer = int_field(e->peer), .tid = e->vtid > 0 ? (uint32_t)e->vtid : 0,
        .site = (unsigned)e->site, .user_tag = e->user_tag, .op = label(m, e->op, e->op_value),
        .dtype = label(m, e->dtype, e->dtype_value), .marked = e->marked,
    };
}

/* An execution of a captured call is not a call: kept apart from the
 * calls' completions, which the rows are made of. */
static void on_done(struct tm_proc *p, const struct tev *e)
{
    saw_seq(p, e);
    struct tm_done d = {
        .comm_id = e->comm_id, .seq = e->seq, .start_ns = e->start_ns, .end_ns = e->end_ns,
        .duration_ns = e->duration_ns, .replay = e->replay,
        .group_ops = e->group_ops, .rank = int_field(e->rank),
        .algbw_gbs = e->algbw_gbs, .busbw_gbs = e->busbw_gbs,
        .stamped = e->stamped, .start_at_call = e->start_at_call, .start_span_ns = e->start_span_ns, .end_span_ns = e->end_span_ns,
    };
    if (e->replay) {
        p->replays = xgrow(p->replays, &p->cap_replays, p->nreplays, sizeof *p->replays, 16);
        p->replays[p->nreplays++] = d;
        return;
    }
    p->done = xgrow(p->done, &p->cap_done, p->ndone, sizeof *p->done, 16);
    p->done[p->ndone++] = d;
}

/* The watchdog repeats every timeout: the latest event of a communicator
 * is where it stands. */
static void on_hang(struct trace_model *m, struct tm_proc *p, const struct tev *e)
{
    struct tm_hang h = {
        .comm_id = e->comm_id, .seq = e->seq, .bytes = e->bytes, .issued = e->issued,
        .done_seq = e->done_seq, .pending_ns = e->pending_ns, .rank = int_field(e->rank),
        .nranks = int_field(e->nranks), .op = label(m, e->op, e->op_value), .started = e->started, .untimed = e->untimed,
        .reports = 1, .site = (unsigned)e->site,
    };
    for (size_t i = 0; i < p->nhangs; i++)
        if (p->hangs[i].comm_id == e->comm_id && p->hangs[i].rank == h.rank) {
            h.reports += p->hangs[i].reports;
            p->hangs[i] = h;
            return;
        }
    p->hangs = xgrow(p->hangs, &p->cap_hangs, p->nhangs, sizeof *p->hangs, 16);
    p->hangs[p->nhangs++] = h;
}

/* Once per site and process; a repeat (a session's events read twice)
 * changes nothing. */
static void on_callsite(struct tm_proc *p, const struct tev *e)
{
    if (e->nframes > p->callsite_depth)
        p->callsite_depth = e->nframes;
    for (size_t i = 0; i < p->nsites; i++)
        if (p->sites[i].id == e->site)
            return;
    size_t n = e->nframes;
    while (n > 0 && e->frames[n - 1] == 0)
        n--;
    p->sites = xgrow(p->sites, &p->cap_sites, p->nsites, sizeof *p->sites, 16);
    struct tm_site *s = &p->sites[p->nsites++];
    s->id = (unsigned)e->site;
    s->frames = xcalloc(n ? n : 1, sizeof *s->frames);
    memcpy(s->frames, e->frames, n * sizeof *s->frames);
    s->nframes = n;
    s->python = xcalloc(e->npython ? e->npython : 1, sizeof *s->python);
    if (e->npython)
        memcpy(s->python, e->python, e->npython * sizeof *s->python);
    s->npython = e->npython;
}

/* Once per frame and process, as on_callsite. */
static void on_python_frame(struct tm_proc *p, const struct tev *e)
{
    for (size_t i = 0; i < p->npyframes; i++)
        if (p->pyframes[i].id == e->py_id)
            return;
    p->pyframes = xgrow(p->pyframes, &p->cap_pyframes, p->npyframes, sizeof *p->pyframes, 16);
    /* A line out of range (not CPython's) is no line, as line 0. */
    int64_t line = e->py_line >= 0 && e->py_line <= INT32_MAX ? e->py_line : 0;
    p->pyframes[p->npyframes++] = (struct tm_pyframe){ e->py_id, xstrdup(e->py_file), xstrdup(e->py_function),
                                                       line };
}

/* A step mark: kept in time order (a mark from another thread may come
 * out of order in the trace: left out, as the shim's ring leaves it). */
static void on_step(struct tm_proc *p, const struct tev *e)
{
    if (e->calls > p->steps_marked)
        p->steps_marked = e->calls;
    if (!e->out_ns || (p->nstep_marks && e->out_ns < p->step_marks[p->nstep_marks - 1]))
        return;
    p->step_marks = xgrow(p->step_marks, &p->cap_step_marks, p->nstep_marks, sizeof *p->step_marks, 64);
    p->step_marks[p->nstep_marks++] = e->out_ns;
}

/* Counted by name, refused when NCCL returned neither ncclSuccess (0)
 * nor ncclInProgress (7), as the rank file's entry_points count. */
static void on_entry_point(struct tm_proc *p, const struct tev *e)
{
    size_t i = 0;
    while (i < p->nentries && strcmp(p->entries[i].name, e->name) != 0)
        i++;
    if (i == p->nentries) {
        p->entries = xgrow(p->entries, &p->cap_entries, p->nentries, sizeof *p->entries, 16);
        p->entries[p->nentries++] = (struct tm_entry){ xstrdup(e->name), 0, 0 };
    }
    p->entries[i].calls++;
    p->entries[i].failed += e->result != 0 && e->result != 7;
}

static void on_module(struct tm_proc *p, const struct tev *e)
{
    for (size_t i = 0; i < p->nmodules; i++)
        if (p->modules[i].start == e->start)
            return;
    p->modules = xgrow(p->modules, &p->cap_modules, p->nmodules, sizeof *p->modules, 16);
    p->modules[p->nmodules++] = (struct tm_module){ xstrdup(e->path), xstrdup(e->build_id), e->base,
                                                    e->start, e->end };
}

static void on_offcpu(struct tm_proc *p, const struct tev *e)
{
    if (p->noffs == TM_MAX_OFFS) {
        p->offs_dropped++;
        return;
    }
    p->offs = xgrow(p->offs, &p->cap_offs, p->noffs, sizeof *p->offs, 256);
    p->offs[p->noffs++] = (struct tm_off){ e->out_ns, e->in_ns, e->tid, e->off_cpu, e->preempted };
    /* A thread's consecutive records once; trace_doc keeps one of each. */
    if (p->nos_threads && p->os_threads[p->nos_threads - 1].tid == e->tid)
        return;
    p->os_threads = xgrow(p->os_threads, &p->cap_os_threads, p->nos_threads, sizeof *p->os_threads, 8);
    struct tm_thread *t = &p->os_threads[p->nos_threads++];
    t->tid = e->tid;
    snprintf(t->comm, sizeof t->comm, "%s", e->comm ? e->comm : "");
}

static void on_group_end(struct tm_proc *p, const struct tev *e)
{
    p->groups = xgrow(p->groups, &p->cap_groups, p->ngroups, sizeof *p->groups, 16);
    p->groups[p->ngroups++] = (struct tm_group){ e->group_id, e->simulated, e->failed, e->marked };
}

void trace_model_add(const struct tev *e, void *model)
{
    struct trace_model *m = model;
    if (e->kind == TEV_DECLARED) {
        on_declared(m, e);
        return;
    }
    if (e->vpid < 0 && !m->no_vpid_said) {
        msg("warning: nccltap events without the vpid context (a session set up without "
            "`lttng add-context -t vpid`): the processes cannot be told apart");
        m->no_vpid_said = true;
    }
    struct tm_proc *p = process(m, e->host, e->vpid);
    if (e->ts_ns) {
        if (!p->first_ns || e->ts_ns < p->first_ns)
            p->first_ns = e->ts_ns;
        if (e->ts_ns > p->last_ns)
            p->last_ns = e->ts_ns;
    }
    switch (e->kind) {
    case TEV_COMM_INIT:
        on_comm_init(p, e);
        break;
    case TEV_COMM_DESTROY:
        on_comm_destroy(p, e);
        break;
    case TEV_OP_ENQUEUE:
        on_op(m, p, e);
        break;
    case TEV_OP_COMPLETE:
        on_done(p, e);
        break;
    case TEV_GROUP_END:
        on_group_end(p, e);
        break;
    case TEV_OP_CAPTURED:
        saw_seq(p, e);
        p->captured++;
        break;
    case TEV_HANG:
        on_hang(m, p, e);
        break;
    case TEV_CALLSITE:
        on_callsite(p, e);
        break;
    case TEV_MODULE:
        on_module(p, e);
        break;
    case TEV_PYTHON_FRAME:
        on_python_frame(p, e);
        break;
    case TEV_PYTHON_UNREAD:
        if (e->calls > p->python_unread)
            p->python_unread = e->calls;
        break;
    case TEV_STEP:
        on_step(p, e);
        break;
    case TEV_ENTRY_POINT:
        on_entry_point(p, e);
        break;
    case TEV_OS_OFFCPU:
        on_offcpu(p, e);
        break;
    case TEV_PROCESS_END:
        p->ended = true;
        break;
    default:
        break;  /* kernel events: trace_kernel.c */
    }
}

void trace_model_free(struct trace_model *m)
{
    for (size_t i = 0; i < m->nprocs; i++) {
        struct tm_proc *p = &m->procs[i];
        for (size_t j = 0; j < p->ncomms; j++) {
            free(p->comms[j].name);
            free(p->comms[j].origin);
        }
        free(p->comms);
        free(p->ops);
        free(p->done);
        free(p->replays);
        free(p->groups);
        free(p->hangs);
        for (size_t j = 0; j < p->nsites; j++) {
            free(p->sites[j].frames);
            free(p->sites[j].python);
        }
        free(p->sites);
        for (size_t j = 0; j < p->npyframes; j++) {
            free(p->pyframes[j].file);
            free(p->pyframes[j].function);
        }
        free(p->pyframes);
        for (size_t j = 0; j < p->nmodules; j++) {
            free(p->modules[j].path);
            free(p->modules[j].build_id);
        }
        free(p->modules);
        free(p->offs);
        free(p->os_threads);
        free(p->step_marks);
        for (size_t j = 0; j < p->nentries; j++)
            free(p->entries[j].name);
        free(p->entries);
        free(p->host);
    }
    free(m->procs);
    for (size_t i = 0; i < m->ndeclared; i++)
        free(m->declared[i].host);
    free(m->declared);
    for (size_t i = 0; i < m->nstrings; i++)
        free(m->strings[i]);
    free(m->strings);
    memset(m, 0, sizeof *m);
}
