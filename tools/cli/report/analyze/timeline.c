#include "timeline.h"
#include "op_sites.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Track ids within a process: real thread ids are below 2^22 (pid_max);
 * streams and CPUs are numbered above them, so no two tracks meet. */
#define STREAM_TID0 0x40000000u
#define CPU_TID0 0x40000000u
#define HOST_TID 0x3fffffffu  /* enqueues of a call whose thread is unknown */

/* A stream of one rank's process and its track, STREAM_TID0 + number. */
struct stream_track {
    uint64_t stream;          /* op_event.stream: its index in rank_file.streams */
    size_t number;            /* streams are numbered by first use */
};

/* The tracks of one rank's process, made before its events are added and
 * looked up by bsearch: its per-op records may name any number of
 * streams and threads. */
struct file_tracks {
    struct stream_track *streams;  /* by stream */
    size_t nstreams;
    uint32_t *threads;        /* the calling threads' tracks (tids, HOST_TID), ascending */
    size_t nthreads;
};

struct builder {
    const struct report *r;
    const struct crossrank *x;
    const struct os_interference *os;
    struct timeline *t;
    size_t cap_events, cap_tracks;
    int64_t from_ns, to_ns;   /* the window, from the origin */
    bool *kept;               /* per file: selected by --ranks */
    struct file_tracks *ft;   /* per file */
};

static void add_track(struct builder *b, struct tl_track k)
{
    struct timeline *t = b->t;
    if (t->ntracks == b->cap_tracks) {
        b->cap_tracks = b->cap_tracks ? 2 * b->cap_tracks : 64;
        t->tracks = xrealloc(t->tracks, b->cap_tracks * sizeof *t->tracks);
    }
    t->tracks[t->ntracks++] = k;
}

/* Adds e when it falls in the window, with its time made relative to the
 * origin; a slice that overlaps the window is cut to it. */
static void add(struct builder *b, struct tl_event e, int64_t abs_ns)
{
    e.ts_ns = abs_ns - b->t->origin_ns;
    if (e.ts_ns + e.dur_ns < b->from_ns || e.ts_ns > b->to_ns)
        return;
    if (e.ts_ns < b->from_ns) {
        e.dur_ns -= b->from_ns - e.ts_ns;
        e.ts_ns = b->from_ns;
    }
    if (e.ts_ns + e.dur_ns > b->to_ns)
        e.dur_ns = b->to_ns - e.ts_ns;
    struct timeline *t = b->t;
    if (t->nevents == b->cap_events) {
        b->cap_events = b->cap_events ? 2 * b->cap_events : 1024;
        t->events = xrealloc(t->events, b->cap_events * sizeof *t->events);
    }
    t->events[t->nevents++] = e;
}

/* ---- which processes ---- */

static bool file_kept(const struct rank_file *f, const struct tl_options *o)
{
    if (!o->ranks)
        return true;
    for (size_t i = 0; i < f->nranks; i++)
        for (size_t j = 0; j < o->nranks; j++)
            if (f->ranks[i] == o->ranks[j])
                return true;
    return false;
}

static uint32_t file_pid(const struct report *r, const struct rank_file *f)
{
    return (uint32_t)(f - r->files) + 1;
}

static uint32_t host_pid(const struct report *r, const struct kernel_trace *k)
{
    return (uint32_t)(r->nfiles + (size_t)(k - r->kernels)) + 1;
}

/* A process's time on the reference clock (crossrank's estimate of its
 * offset). */
static int64_t aligned(const struct rank_file *f, uint64_t ns)
{
    return (int64_t)ns - f->clock_offset_ns;
}

static int64_t first_op_ns(const struct report *r)
{
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].nevents; j++) {
            const struct op_event *e = &r->files[i].events[j];
            /* An execution of a captured call has no enqueue of its own. */
            uint64_t t = op_replay(e) || (e->start_ns && e->start_ns < e->enqueue_ns) ? e->start_ns : e->enqueue_ns;
            if (aligned(&r->files[i], t) < first)
                first = aligned(&r->files[i], t);
        }
    return first == INT64_MAX ? 0 : first;
}

static void add_process(struct builder *b, const struct rank_file *f)
{
    uint32_t pid = file_pid(b->r, f);
    add_track(b, (struct tl_track){ .pid = pid, .kind = TL_TRACK_RANK, .file = f, .host = f->host,
                                    .sort = f->nranks ? f->ranks[0] : (int)pid });
}

/* ---- ops ---- */

static int cmp_stream(const void *a, const void *b)
{
    const struct stream_track *x = a, *y = b;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

/* By stream, then by use: each stream's first use comes first. */
static int cmp_stream_use(const void *a, const void *b)
{
    const struct stream_track *x = a, *y = b;
    int c = cmp_stream(a, b);
    return c ? c : (x->number > y->number) - (x->number < y->number);
}

/* Grouped ops by group, then stream, then place in the file. */
static int cmp_group_stream(const void *a, const void *b)
{
    const struct op_event *x = *(const struct op_event *const *)a, *y = *(const struct op_event *const *)b;
    if (op_group(x) != op_group(y))
        return op_group(x) < op_group(y) ? -1 : 1;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int cmp_number(const void *a, const void *b)
{
    const struct stream_track *x = a, *y = b;
    return (x->number > y->number) - (x->number < y->number);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The os thread `tid` of f (os->threads is by file, then tid), or NULL. */
static const struct os_thread *os_thread_of(const struct os_interference *os, const struct rank_file *f,
                                            uint32_t tid)
{
    size_t lo = 0, hi = os ? os->nthreads : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct os_thread *t = &os->threads[mid];
        if (t->file < f || (t->file == f && (uint32_t)t->tid < tid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < (os ? os->nthreads : 0) && os->threads[lo].file == f && (uint32_t)os->threads[lo].tid == tid
               ? &os->threads[lo] : NULL;
}

/* The track of a thread of f: named as the kernel trace names it, when
 * there is one. */
static void add_thread_track(struct builder *b, const struct rank_file *f, uint32_t tid)
{
    const struct os_thread *t = os_thread_of(b->os, f, tid);
    add_track(b, (struct tl_track){ .pid = file_pid(b->r, f), .tid = tid,
                                    .kind = tid == HOST_TID ? TL_TRACK_CALLS : TL_TRACK_THREAD,
                                    .file = f, .thread = tid, .comm = t ? t->comm : NULL,
                                    .sort = t && t->nccl ? 2 : 1 });
}

/* The thread of an op's call: its track's id. */
static uint32_t caller_tid(const struct op_event *e)
{
    return e->tid ? e->tid : HOST_TID;
}

/* f's streams, numbered by first use, and its calling threads: their
 * tracks, and ft to find them by. */
static void file_tracks_make(struct builder *b, const struct rank_file *f, struct file_tracks *ft)
{
    struct stream_track *s = xcalloc(f->nevents + 1, sizeof *s);
    uint32_t *t = xcalloc(f->nevents + 1, sizeof *t);
    size_t ns = 0, nt = 0;
    for (size_t j = 0; j < f->nevents; j++) {
        s[ns++] = (struct stream_track){ f->events[j].stream, j };
        if (!op_replay(&f->events[j]))  /* a graph launch ran it: no call */
            t[nt++] = caller_tid(&f->events[j]);
    }
    if (ns)
        qsort(s, ns, sizeof *s, cmp_stream_use);
    size_t m = 0;
    for (size_t j = 0; j < ns; j++)  /* each stream's first use */
        if (!m || s[m - 1].stream != s[j].stream)
            s[m++] = s[j];
    ns = m;
    if (ns)
        qsort(s, ns, sizeof *s, cmp_number);
    for (size_t k = 0; k < ns; k++) {
        s[k].number = k;
        add_track(b, (struct tl_track){ .pid = file_pid(b->r, f), .tid = STREAM_TID0 + (uint32_t)k,
                                        .kind = TL_TRACK_STREAM, .file = f, .stream = f->streams[s[k].stream],
                                        .sort = 1000 + (int)k });
    }
    if (ns)
        qsort(s, ns, sizeof *s, cmp_stream);
    if (nt)
        qsort(t, nt, sizeof *t, cmp_u32);
    m = 0;
    for (size_t j = 0; j < nt; j++)
        if (!m || t[m - 1] != t[j])
            t[m++] = t[j];
    for (size_t j = 0; j < m; j++)
        add_thread_track(b, f, t[j]);
    *ft = (struct file_tracks){ s, ns, t, m };
}

/* The track of e's stream in its process. */
static uint32_t stream_tid(struct builder *b, const struct rank_file *f, const struct op_event *e)
{
    const struct file_tracks *ft = &b->ft[f - b->r->files];
    struct stream_track key = { e->stream, 0 };
    const struct stream_track *s = bsearch(&key, ft->streams, ft->nstreams, sizeof key, cmp_stream);
    return STREAM_TID0 + (uint32_t)s->number;  /* file_tracks_make made one for every event's */
}

/* The track of thread `tid` of f, made if its calls did not make it. */
static uint32_t thread_tid(struct builder *b, const struct rank_file *f, uint32_t tid)
{
    const struct file_tracks *ft = &b->ft[f - b->r->files];
    if (!bsearch(&tid, ft->threads, ft->nthreads, sizeof tid, cmp_u32))
        add_thread_track(b, f, tid);  /* os->threads holds it once: made once */
    return tid;
}

/* Ops of one group share one interval: one group slice per stream, at the
 * first of the group's ops on it. Which of f's events are those. */
static bool *group_slices(const struct rank_file *f)
{
    bool *first = xcalloc(f->nevents + 1, sizeof *first);
    const struct op_event **g = xcalloc(f->nevents + 1, sizeof *g);
    size_t n = 0;
    for (size_t j = 0; j < f->nevents; j++)
        if (op_group(&f->events[j]))
            g[n++] = &f->events[j];
    if (n)
        qsort(g, n, sizeof *g, cmp_group_stream);
    for (size_t j = 0; j < n; j++)
        if (!j || op_group(g[j - 1]) != op_group(g[j]) || g[j - 1]->stream != g[j]->stream)
            first[g[j] - f->events] = true;
    free(g);
    return first;
}

static void add_ops(struct builder *b, const struct rank_file *f)
{
    uint32_t pid = file_pid(b->r, f);
    struct op_sites sites;
    op_sites_of_file(f, &sites);
    file_tracks_make(b, f, &b->ft[f - b->r->files]);
    bool *group_slice = group_slices(f);
    for (size_t j = 0; j < f->nevents; j++) {
        const struct op_event *e = &f->events[j];
        const char *name = report_name(b->r, e->op);
        uint32_t tid = stream_tid(b, f, e);
        if (group_slice[j])
            add(b, (struct tl_event){ .dur_ns = (int64_t)(e->end_ns - e->start_ns), .pid = pid,
                                      .tid = tid, .what = TL_GROUP, .ph = 'X', .name = "group",
                                      .file = f, .op = e },
                aligned(f, e->start_ns));
        int64_t dur = (int64_t)(e->end_ns - e->start_ns);
        const struct xr_instance *in = b->x ? xr_find(b->x, e->comm, e->seq, op_replay(e)) : NULL;
        int n = in && in->nranks ? in->nranks : (int)(in ? in->n : 1);
        /* nccl-tests' busbw of this rank's interval; a grouped op's interval
         * is its group's, so it has none of its own. */
        double busbw = !op_group(e) && dur > 0 ? (double)e->bytes * xr_bus_factor(name, n) / (double)dur : 0;
        const struct callsite *site = op_site(&sites, b->r, e);
        add(b, (struct tl_event){ .dur_ns = dur, .pid = pid, .tid = tid, .what = TL_OP, .ph = 'X',
                                  .name = name, .file = f, .op = e, .busbw_gbs = busbw, .site = site },
            aligned(f, e->start_ns));
        if (op_replay(e))
            continue;  /* a graph launch ran it: no call, no enqueue */
        add(b, (struct tl_event){ .pid = pid, .tid = caller_tid(e), .what = TL_ENQUEUE, .ph = 'i',
                                  .name = name, .file = f, .op = e, .site = site },
            aligned(f, e->enqueue_ns));
    }
    free(group_slice);
    op_sites_free(&sites);
}

/* ---- flows: one per collective instance, one per send and its receive ---- */

/* Where a flow meets an op's slice: a little inside it (half the slice, at
 * most 1 us), so that it binds to that slice also where the previous op on
 * the stream ends in the nanosecond this one starts. */
static int64_t flow_ts(const struct report *r, struct xr_member m)
{
    int64_t start = xr_start(r, m), half = (xr_end(r, m) - start) / 2;
    return start + (half < 1000 ? half : 1000);
}

static void flow_point(struct builder *b, struct xr_member m, char ph, uint64_t id, bool p2p)
{
    const struct rank_file *f = &b->r->files[m.file];
    const struct op_event *e = xr_event(b->r, m);
    add(b, (struct tl_event){ .pid = file_pid(b->r, f), .tid = stream_tid(b, f, e), .what = TL_FLOW,
                              .ph = ph, .name = report_name(b->r, e->op), .file = f, .op = e,
                              .flow_id = id, .p2p = p2p },
        flow_ts(b->r, m));
}

static const struct report *by_start_report;  /* qsort has no user argument */

/* By the flow's time, then file: the order the events are sorted in at the
 * end, so that the start comes first and the end last. */
static int cmp_start(const void *a, const void *b)
{
    const struct xr_member *p = a, *q = b;
    int64_t x = flow_ts(by_start_report, *p), y = flow_ts(by_start_report, *q);
    if (x != y)
        return x < y ? -1 : 1;
    return (p->file > q->file) - (p->file < q->file);
}

static void add_flows(struct builder *b)
{
    const struct crossrank *x = b->x;
    uint64_t id = 0;
    struct xr_member *m = xcalloc(x->nmembers ? x->nmembers : 1, sizeof *m);
    for (size_t i = 0; i < x->ninstances; i++) {
        const struct xr_instance *in = &x->instances[i];
        id++;
        size_t n = 0;
        for (size_t k = 0; k < in->n; k++)
            if (b->kept[x->members[in->first + k].file])
                m[n++] = x->members[in->first + k];
        if (n < 2)
            continue;
        /* In order of arrival: the last arrow ends at the straggler. */
        by_start_report = b->r;
        qsort(m, n, sizeof *m, cmp_start);
        for (size_t k = 0; k < n; k++)
            flow_point(b, m[k], k == 0 ? 's' : k + 1 == n ? 'f' : 't', id, false);
    }
    for (size_t i = 0; i < x->npairs; i++) {
        const struct xr_pair *p = &x->pairs[i];
        id++;
        if (b->kept[p->send.file] && b->kept[p->recv.file]) {
            flow_point(b, p->send, 's', id, true);
            flow_point(b, p->recv, 'f', id, true);
        }
    }
    free(m);
}

/* ---- the kernel: CPUs, interrupts, the rank threads off the CPU ---- */

static void add_kernel(struct builder *b, const struct kernel_trace *k, int64_t offset)
{
    uint32_t pid = host_pid(b->r, k);
    add_track(b, (struct tl_track){ .pid = pid, .kind = TL_TRACK_HOST, .host = k->host, .sort = 1 << 20 });
    for (uint32_t c = 0; c < k->ncpus; c++) {
        add_track(b, (struct tl_track){ .pid = pid, .tid = CPU_TID0 + 2 * c, .kind = TL_TRACK_CPU,
                                        .cpu = c, .sort = (int)(2 * c) });
        add_track(b, (struct tl_track){ .pid = pid, .tid = CPU_TID0 + 2 * c + 1, .kind = TL_TRACK_CPU_IRQ,
                                        .cpu = c, .sort = (int)(2 * c + 1) });
    }
    /* Who ran: from each switch to the next on the same CPU; idle left out. */
    size_t *last = xcalloc(k->ncpus ? k->ncpus : 1, sizeof *last);
    for (size_t i = 0; i < k->nswitches; i++) {
        const struct sched_switch *s = &k->switches[i];
        size_t prev = last[s->cpu];
        last[s->cpu] = i + 1;
        if (!prev || k->switches[prev - 1].next_tid == 0)
            continue;
        const struct sched_switch *p = &k->switches[prev - 1];
        add(b, (struct tl_event){ .dur_ns = (int64_t)(s->ts_ns - p->ts_ns), .pid = pid,
                                  .tid = CPU_TID0 + 2 * s->cpu, .what = TL_CPU_RUN, .ph = 'X',
                                  .name = p->next_comm, .number = p->next_tid },
            (int64_t)p->ts_ns - offset);
    }
    free(last);
    for (size_t i = 0; i < k->nirqs; i++) {
        const struct irq_run *q = &k->irqs[i];
        add(b, (struct tl_event){ .dur_ns = (int64_t)(q->end_ns - q->start_ns), .pid = pid,
                                  .tid = CPU_TID0 + 2 * q->cpu + 1, .what = TL_IRQ, .ph = 'X',
                                  .name = q->name, .detail = q->name, .number = q->irq },
            (int64_t)q->start_ns - offset);
    }
}

static void add_offcpu(struct builder *b, const struct os_interference *os)
{
    for (size_t i = 0; i < os->nthreads; i++) {
        const struct os_thread *t = &os->threads[i];
        if (!b->kept[t->file - b->r->files])
            continue;
        uint32_t pid = file_pid(b->r, t->file), tid = thread_tid(b, t->file, (uint32_t)t->tid);
        for (size_t j = 0; j < t->noff; j++) {
            const struct os_interval *o = &t->off[j];
            add(b, (struct tl_event){ .dur_ns = (int64_t)(o->end_ns - o->start_ns), .pid = pid,
                                      .tid = tid, .what = TL_OFFCPU, .ph = 'X',
                                      .name = o->preempted ? "off-CPU (preempted)" : "off-CPU (waiting)",
                                      .detail = o->preempted ? o->by : NULL },
                aligned(t->file, o->start_ns));
        }
    }
}

/* ---- order ---- */

static size_t track_index(const struct timeline *t, uint32_t pid, uint32_t tid)
{
    size_t lo = 0, hi = t->ntracks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct tl_track *k = &t->tracks[mid];
        if (k->pid < pid || (k->pid == pid && k->tid < tid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The slices open on one track while nest() walks it. Stream tracks hold
 * groups and their ops: two levels; deeper ones are not looked at. */
struct open_slices {
    int64_t start[4], end[4];
    size_t n;
};

/* Complete events on one track must nest. Converted to the host's clock,
 * an op can start a few ns before the previous op on its stream ends: such
 * a slice, and what its slice holds, is cut to start where the one before
 * it ends. Returns whether any was cut (the order is then to be made
 * again). */
static bool nest(struct timeline *t)
{
    struct open_slices *open = xcalloc(t->ntracks + 1, sizeof *open);
    bool cut = false;
    for (size_t i = 0; i < t->nevents; i++) {
        struct tl_event *e = &t->events[i];
        if (e->ph != 'X')
            continue;
        struct open_slices *o = &open[track_index(t, e->pid, e->tid)];
        int64_t end = e->ts_ns + e->dur_ns;
        for (;;) {
            while (o->n && o->end[o->n - 1] <= e->ts_ns)
                o->n--;
            if (!o->n)
                break;
            size_t top = o->n - 1;
            if (e->ts_ns < o->start[top]) {  /* its enclosing slice was cut */
                e->ts_ns = o->start[top];
                cut = true;
            }
            if (end <= o->end[top])
                break;                        /* inside it */
            e->ts_ns = o->end[top];           /* crosses its end: after it */
            cut = true;
        }
        if (e->ts_ns > end)
            e->ts_ns = end;
        e->dur_ns = end - e->ts_ns;
        if (o->n < sizeof o->end / sizeof o->end[0]) {
            o->start[o->n] = e->ts_ns;
            o->end[o->n++] = end;
        }
    }
    free(open);
    return cut;
}

static int cmp_event(const void *a, const void *b)
{
    const struct tl_event *x = a, *y = b;
    if (x->ts_ns != y->ts_ns)
        return x->ts_ns < y->ts_ns ? -1 : 1;
    if (x->dur_ns != y->dur_ns)  /* an enclosing slice before what it holds */
        return x->dur_ns > y->dur_ns ? -1 : 1;
    if (x->what != y->what)      /* a group before its ops; slices before flows */
        return x->what < y->what ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_track(const void *a, const void *b)
{
    const struct tl_track *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

void timeline_build(const struct report *r, const struct os_interference *os,
                    const struct tl_options *o, struct timeline *t)
{
    memset(t, 0, sizeof *t);
    struct builder b = { .r = r, .x = r->cross, .os = os, .t = t };
    t->origin_ns = first_op_ns(r);
    b.from_ns = llround(o->from_s * 1e9);
    b.to_ns = o->to_s < 0 ? INT64_MAX / 2 : llround(o->to_s * 1e9);
    b.kept = xcalloc(r->nfiles ? r->nfiles : 1, sizeof *b.kept);
    b.ft = xcalloc(r->nfiles ? r->nfiles : 1, sizeof *b.ft);
    for (size_t i = 0; i < r->nfiles; i++)
        if ((b.kept[i] = file_kept(&r->files[i], o))) {
            add_process(&b, &r->files[i]);
            add_ops(&b, &r->files[i]);
        }
    if (b.x)
        add_flows(&b);
    for (size_t i = 0; i < r->nkernels; i++) {
        /* The host's processes share its clock: the first one's offset. */
        int64_t offset = 0;
        bool any = false, seen = false;
        for (size_t j = 0; j < r->nfiles; j++)
            if (strcmp(r->files[j].host, r->kernels[i].host) == 0) {
                if (!seen)
                    offset = r->files[j].clock_offset_ns;
                seen = true;
                any |= b.kept[j];
            }
        if (any)
            add_kernel(&b, &r->kernels[i], offset);
    }
    if (os)
        add_offcpu(&b, os);
    for (size_t i = 0; i < r->nfiles; i++) {
        free(b.ft[i].streams);
        free(b.ft[i].threads);
    }
    free(b.ft);
    free(b.kept);
    if (t->ntracks)
        qsort(t->tracks, t->ntracks, sizeof *t->tracks, cmp_track);
    if (t->nevents) {
        qsort(t->events, t->nevents, sizeof *t->events, cmp_event);
        if (nest(t))
            qsort(t->events, t->nevents, sizeof *t->events, cmp_event);
    }
}

void timeline_free(struct timeline *t)
{
    free(t->tracks);
    free(t->events);
    memset(t, 0, sizeof *t);
}
