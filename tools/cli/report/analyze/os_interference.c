#include "os_interference.h"
#include "os_threads.h"
#include "crossrank_base.h"
#include "intervals.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static struct os_sources os_sources(const struct report *r)
{
    struct os_sources s = { .kernel_hosts = r->nkernels };
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        if (f->os && kernel_of(r, f) == f->os)
            s.shim_files++;
        else if (f->os)
            s.shim_unused++;
        if (f->os)
            s.lost += f->os->lost, s.dropped += f->os->dropped, s.unfollowed += f->os->unfollowed;
        else if (f->os_mode && f->os_note && *f->os_note)
            s.refused++, s.note = f->os_note;
        else if (f->os_mode && strcmp(f->os_mode, "off") == 0)
            s.off++;
    }
    return s;
}

/* ---- each op's window ---- */

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
    uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

/* The first interval of a[0..n) (by start, disjoint) that ends after t. */
static size_t first_ending_after(const struct os_interval *a, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].end_ns <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Time per name, to find the one that took most. Names are interned. */
struct tally {
    const char *name[16];
    uint64_t ns[16];
    int irq[16];
    size_t n;
};

static void tally_add(struct tally *t, const char *name, int irq, uint64_t ns)
{
    size_t i = 0;
    while (i < t->n && t->name[i] != name)
        i++;
    if (i == t->n) {
        if (t->n == sizeof t->name / sizeof t->name[0])
            return;  /* more than 16 culprits in one op: the first ones */
        t->name[i] = name;
        t->ns[i] = 0;
        t->irq[i] = irq;
        t->n++;
    }
    t->ns[i] += ns;
}

static size_t tally_top(const struct tally *t)
{
    size_t best = 0;
    for (size_t i = 1; i < t->n; i++)
        if (t->ns[i] > t->ns[best])
            best = i;
    return best;
}

/* Interrupt time on `cpu` in [from, to). */
static uint64_t irq_time(const struct kernel_trace *k, uint32_t cpu, uint64_t from, uint64_t to,
                         struct tally *irqs)
{
    /* The first run starting at or after `from`, less one that may straddle it. */
    size_t lo = 0, hi = k->nirqs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->irqs[mid].start_ns < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t ns = 0;
    for (size_t i = lo ? lo - 1 : 0; i < k->nirqs && k->irqs[i].start_ns < to; i++) {
        const struct irq_run *q = &k->irqs[i];
        uint64_t d = q->cpu == cpu ? overlap(q->start_ns, q->end_ns, from, to) : 0;
        if (d) {
            ns += d;
            tally_add(irqs, q->name, q->irq, d);
        }
    }
    return ns;
}

static void measure(struct os_row *row, const struct os_thread *const *threads, size_t n)
{
    struct tally by = { 0 }, irqs = { 0 };
    uint64_t worst = 0;
    for (size_t i = 0; i < n; i++) {
        const struct os_thread *t = threads[i];
        uint64_t lost = 0;
        for (size_t j = first_ending_after(t->off, t->noff, row->from_ns);
             j < t->noff && t->off[j].start_ns < row->to_ns; j++) {
            const struct os_interval *o = &t->off[j];
            uint64_t d = overlap(o->start_ns, o->end_ns, row->from_ns, row->to_ns);
            row->offcpu_ns += d;
            if (o->preempted) {
                row->preempted_ns += d;
                lost += d;
                tally_add(&by, o->by, 0, d);
            } else {
                row->waiting_ns += d;
            }
        }
        for (size_t j = first_ending_after(t->on, t->non, row->from_ns);
             j < t->non && t->on[j].start_ns < row->to_ns; j++) {
            const struct os_interval *o = &t->on[j];
            uint64_t from = o->start_ns > row->from_ns ? o->start_ns : row->from_ns;
            uint64_t to = o->end_ns < row->to_ns ? o->end_ns : row->to_ns;
            uint64_t d = irq_time(t->kernel, o->cpu, from, to, &irqs);
            row->irq_ns += d;
            lost += d;
        }
        if (lost > worst) {
            worst = lost;
            row->thread = t;
        }
    }
    if (by.n)
        row->preempted_by = by.name[tally_top(&by)];
    if (irqs.n) {
        size_t top = tally_top(&irqs);
        row->irq_name = irqs.name[top];
        row->irq = irqs.irq[top];
    }
}

/* Ops of one group share one interval: only its first op (by comm, seq)
 * is looked at. The groups' first ops, sorted by group id. */
static int cmp_group_first(const void *a, const void *b)
{
    const struct op_event *x = *(const struct op_event *const *)a, *y = *(const struct op_event *const *)b;
    if (op_group(x) != op_group(y))
        return op_group(x) < op_group(y) ? -1 : 1;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static const struct op_event **group_firsts(const struct rank_file *f, size_t *n)
{
    const struct op_event **g = xcalloc(f->nevents + 1, sizeof *g);
    size_t m = 0;
    for (size_t i = 0; i < f->nevents; i++)
        if (op_group(&f->events[i]))
            g[m++] = &f->events[i];
    if (m)
        qsort(g, m, sizeof *g, cmp_group_first);
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (k == 0 || op_group(g[k - 1]) != op_group(g[i]))
            g[k++] = g[i];
    *n = k;
    return g;
}

static bool later_in_group(const struct op_event *e, const struct op_event **firsts, size_t n)
{
    if (!op_group(e))
        return false;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (op_group(firsts[mid]) < op_group(e))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && firsts[lo] != e;
}

static int cmp_row(const void *a, const void *b)
{
    const struct os_row *x = a, *y = b;
    uint64_t lx = x->preempted_ns + x->irq_ns, ly = y->preempted_ns + y->irq_ns;
    if (lx != ly)
        return lx > ly ? -1 : 1;
    if (x->op->rank != y->op->rank)
        return x->op->rank < y->op->rank ? -1 : 1;
    return (x->op->seq > y->op->seq) - (x->op->seq < y->op->seq);
}

/* A straggler's row also covers the wait it caused: from the first rank's
 * start of the collective to its own (crossrank's instance, in the
 * reference clock, brought back to f's). */
static void wait_caused(const struct report *r, const struct rank_file *f, const struct op_event *e,
                        struct os_row *row)
{
    const struct crossrank *x = r->cross;
    const struct xr_instance *in = x ? xr_find(x, e->comm, e->seq, op_replay(e)) : NULL;
    if (!in || in->last_file != (uint32_t)(f - r->files) || in->skew_ns < x->threshold_ns)
        return;
    row->straggler = true;
    row->wait_ns = (uint64_t)in->skew_ns;
    row->others_waited_ns = (uint64_t)(in->others_wait_ns * (double)(in->n - 1));
    int64_t first = in->earliest_start_ns + f->clock_offset_ns;
    if (first > 0 && (uint64_t)first < row->from_ns)
        row->from_ns = (uint64_t)first;
}

/* By (comm, op, size), then seq. */
static int cmp_kind(const void *a, const void *b)
{
    const struct op_event *x = *(const struct op_event *const *)a, *y = *(const struct op_event *const *)b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->op != y->op)
        return x->op < y->op ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static bool same_kind(const struct op_event *x, const struct op_event *y)
{
    return x->comm == y->comm && x->op == y->op && x->bytes == y->bytes;
}

/* Per event of f, whether it is the first of its (comm, op, size), or
 * an execution of that first call. */
static bool *firsts_of_kind(const struct rank_file *f)
{
    const struct op_event **e = xcalloc(f->nevents + 1, sizeof *e);
    bool *first = xcalloc(f->nevents + 1, sizeof *first);
    for (size_t i = 0; i < f->nevents; i++)
        e[i] = &f->events[i];
    qsort(e, f->nevents, sizeof *e, cmp_kind);
    for (size_t i = 0; i < f->nevents; i++)
        first[e[i] - f->events] = i == 0 || !same_kind(e[i - 1], e[i]) || e[i - 1]->seq == e[i]->seq;
    free(e);
    return first;
}

/* The others' waiting that a straggler row's loss before its call
 * explains: their waits, times the share of its lateness lost. */
static uint64_t explained(const struct os_row *row)
{
    if (!row->straggler || row->first_of_kind || !row->wait_ns)
        return 0;
    double covered = (double)row->late_lost_ns / (double)row->wait_ns;
    return (uint64_t)((covered > 1 ? 1 : covered) * (double)row->others_waited_ns);
}

/* The process's loss over the union of its ops' windows w[0..n) (pairs of
 * from, to), which this merges in place (intervals_merge). */
static struct os_proc proc_total(const struct rank_file *f, uint64_t (*w)[2], size_t n,
                                 const struct os_thread *const *threads, size_t nthreads)
{
    struct os_proc p = { .file = f };
    n = intervals_merge(w, n, NULL);
    for (size_t i = 0; i < n; i++) {
        struct os_row u = { .file = f, .from_ns = w[i][0], .to_ns = w[i][1] };
        measure(&u, threads, nthreads);
        p.offcpu_ns += u.offcpu_ns;
        p.preempted_ns += u.preempted_ns;
        p.irq_ns += u.irq_ns;
    }
    return p;
}

/* A thread and the time it was kept off its CPU while it wanted it. */
struct thread_loss {
    const struct os_thread *t;
    uint64_t preempted_ns;
};

static int cmp_loss(const void *a, const void *b)
{
    const struct thread_loss *x = a, *y = b;
    if (x->preempted_ns != y->preempted_ns)
        return x->preempted_ns > y->preempted_ns ? -1 : 1;
    return (x->t->tid > y->t->tid) - (x->t->tid < y->t->tid);
}

/* Of one process's threads t[0..n), those each op is measured against:
 * the ones with time on or off a CPU (a thread no switch names lost
 * nothing), at most OS_MAX_THREADS. Past that (a damaged file or trace),
 * the ones preempted longest; the others are counted as not followed.
 * Into m (n of room); returns how many. */
static size_t measured(const struct os_thread *t, size_t n, const struct os_thread **m, uint64_t *unfollowed)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i].non || t[i].noff)
            m[k++] = &t[i];
    if (k <= OS_MAX_THREADS)
        return k;
    struct thread_loss *loss = xcalloc(k, sizeof *loss);
    for (size_t i = 0; i < k; i++) {
        loss[i].t = m[i];
        for (size_t j = 0; j < m[i]->noff; j++)
            loss[i].preempted_ns += m[i]->off[j].preempted ? m[i]->off[j].end_ns - m[i]->off[j].start_ns : 0;
    }
    qsort(loss, k, sizeof *loss, cmp_loss);
    for (size_t i = 0; i < OS_MAX_THREADS; i++)
        m[i] = loss[i].t;
    free(loss);
    *unfollowed += k - OS_MAX_THREADS;
    return OS_MAX_THREADS;
}

void os_interference_analyze(const struct report *r, struct os_interference *out)
{
    memset(out, 0, sizeof *out);
    out->sources = os_sources(r);
    if (!out->sources.kernel_hosts && !out->sources.shim_files)
        return;
    struct os_threads_found l;
    os_threads_find(r, &l);
    out->threads = l.t;
    out->nthreads = l.n;

    size_t cap = 0;
    const struct os_thread **threads = xcalloc(l.n + 1, sizeof *threads);
    for (size_t i = 0; i < l.n;) {
        const struct rank_file *f = l.t[i].file;
        size_t all = 0;
        while (i + all < l.n && l.t[i + all].file == f)
            all++;
        size_t n = measured(&l.t[i], all, threads, &out->sources.unfollowed);
        size_t nfirsts, nwindows = 0;
        const struct op_event **firsts = group_firsts(f, &nfirsts);
        uint64_t (*windows)[2] = xcalloc(f->nevents + 1, sizeof *windows);
        bool *first = firsts_of_kind(f);
        uint64_t explained_ns = 0;
        for (size_t j = 0; j < f->nevents; j++) {
            const struct op_event *e = &f->events[j];
            if (later_in_group(e, firsts, nfirsts))
                continue;
            struct os_row row = { .file = f, .op = e, .first_of_kind = first[j] };
            /* An execution of a captured call read from a trace has no
             * enqueue time (its launch's is not traced): its GPU interval. */
            uint64_t enq = e->enqueue_ns ? e->enqueue_ns : e->start_ns;
            row.from_ns = e->start_ns && e->start_ns < enq ? e->start_ns : enq;
            row.to_ns = e->end_ns > enq ? e->end_ns : enq;
            uint64_t call_ns = row.from_ns;
            wait_caused(r, f, e, &row);
            windows[nwindows][0] = row.from_ns;
            windows[nwindows++][1] = row.to_ns;
            measure(&row, threads, n);
            if (row.straggler && row.from_ns < call_ns) {
                struct os_row before = { .from_ns = row.from_ns, .to_ns = call_ns };
                measure(&before, threads, n);
                row.late_lost_ns = before.preempted_ns + before.irq_ns;
                explained_ns += explained(&row);
            }
            if (row.preempted_ns + row.irq_ns < OS_ROW_MIN_NS)
                continue;
            if (out->nrows == cap) {
                cap = cap ? 2 * cap : 16;
                out->rows = xrealloc(out->rows, cap * sizeof *out->rows);
            }
            out->rows[out->nrows++] = row;
        }
        free(firsts);
        free(first);
        out->procs = xrealloc(out->procs, (out->nprocs + 1) * sizeof *out->procs);
        out->procs[out->nprocs] = proc_total(f, windows, nwindows, threads, n);
        out->procs[out->nprocs++].explained_ns = explained_ns;
        free(windows);
        i += all;
    }
    free(threads);
    if (out->nrows)
        qsort(out->rows, out->nrows, sizeof *out->rows, cmp_row);
}

void os_interference_free(struct os_interference *o)
{
    for (size_t i = 0; i < o->nthreads; i++) {
        free(o->threads[i].on);
        free(o->threads[i].off);
    }
    free(o->threads);
    free(o->rows);
    free(o->procs);
    memset(o, 0, sizeof *o);
}
