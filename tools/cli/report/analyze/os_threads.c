#include "os_threads.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* ---- the threads of each rank ----
 * Found, then sorted and made unique: a run's per-op records may name a
 * hundred thousand threads, and a damaged file or trace any number, so
 * nothing here looks a thread up by walking a list. */

struct thread_list {
    struct os_thread *t;
    size_t n, cap;
};

/* A candidate; find_threads drops the duplicates. */
static void add_thread(struct thread_list *l, const struct rank_file *f,
                       const struct kernel_trace *k, int32_t tid, bool nccl)
{
    /* -1 is the side a process's own record does not know: following it
     * would take every other thread's switches for its own. */
    if (tid <= 0)
        return;
    l->t = xgrow(l->t, &l->cap, l->n, sizeof *l->t, 16);
    l->t[l->n++] = (struct os_thread){ .file = f, .kernel = k, .tid = tid, .comm = "", .nccl = nccl };
}

static bool is_nccl_name(const char *comm)
{
    return strncmp(comm, "NCCL", 4) == 0;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Sorts a[0..n) and keeps one of each value; returns how many. */
static size_t sort_unique(int32_t *a, size_t n)
{
    if (n)
        qsort(a, n, sizeof *a, cmp_i32);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || a[m - 1] != a[i])
            a[m++] = a[i];
    return m;
}

/* Entries of a kernel trace's thread list by tid, then by place in it. */
static int cmp_entry(const void *a, const void *b)
{
    const struct kernel_thread *x = *(const struct kernel_thread *const *)a,
                               *y = *(const struct kernel_thread *const *)b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The process of `tid` as the kernel trace says (its last fork or dump
 * entry: the last of `by_tid`'s entries for it), -1 when it does not. */
static int32_t pid_of(const struct kernel_thread *const *by_tid, size_t n, int32_t tid)
{
    size_t lo = 0, hi = n;  /* the first entry past tid */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (by_tid[mid]->tid <= tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && by_tid[lo - 1]->tid == tid ? by_tid[lo - 1]->pid : -1;
}

static int cmp_file_pid(const void *a, const void *b)
{
    const struct rank_file *x = *(const struct rank_file *const *)a, *y = *(const struct rank_file *const *)b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* NCCL's threads on k: the tids sched_switch names "NCCL...". Owner: the
 * process the trace ties the tid to; a thread the trace does not tie goes
 * to the only traced process of its host, if there is one. */
static void add_nccl_threads(struct thread_list *l, const struct report *r,
                             const struct kernel_trace *k)
{
    int32_t *tids = xcalloc(k->nswitches + 1, sizeof *tids);
    size_t ntids = 0;
    for (size_t i = 0; i < k->nswitches; i++) {
        const struct sched_switch *s = &k->switches[i];
        tids[ntids] = is_nccl_name(s->next_comm) ? s->next_tid : is_nccl_name(s->prev_comm) ? s->prev_tid : -1;
        ntids += tids[ntids] > 0;
    }
    ntids = sort_unique(tids, ntids);
    const struct kernel_thread **by_tid = xcalloc(k->nthreads + 1, sizeof *by_tid);
    for (size_t i = 0; i < k->nthreads; i++)
        by_tid[i] = &k->threads[i];
    if (k->nthreads)
        qsort(by_tid, k->nthreads, sizeof *by_tid, cmp_entry);
    const struct rank_file **host = xcalloc(r->nfiles + 1, sizeof *host);  /* k's, by pid */
    size_t nhost = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        if (strcmp(r->files[i].host, k->host) == 0)
            host[nhost++] = &r->files[i];
    if (nhost)
        qsort(host, nhost, sizeof *host, cmp_file_pid);
    for (size_t j = 0; j < ntids; j++) {
        int32_t pid = pid_of(by_tid, k->nthreads, tids[j]);
        if (pid < 0) {
            if (nhost == 1)
                add_thread(l, host[0], k, tids[j], true);
            continue;
        }
        struct rank_file key = { .pid = pid };
        const struct rank_file *kp = &key, **at = bsearch(&kp, host, nhost, sizeof *host, cmp_file_pid);
        /* Files of one pid on a host (a damaged run): each of them. */
        while (at && at > host && at[-1]->pid == pid)
            at--;
        for (; at && at < host + nhost && (*at)->pid == pid; at++)
            add_thread(l, *at, k, tids[j], true);
    }
    free(host);
    free(by_tid);
    free(tids);
}

static int cmp_thread(const void *a, const void *b)
{
    const struct os_thread *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The threads that called NCCL in f: its per-op records' tids. */
static void add_callers(struct thread_list *l, const struct rank_file *f, const struct kernel_trace *k)
{
    int32_t *tids = xcalloc(f->nevents + 1, sizeof *tids);
    size_t n = 0;
    for (size_t j = 0; j < f->nevents; j++)
        if (f->events[j].tid && (!n || tids[n - 1] != (int32_t)f->events[j].tid))
            tids[n++] = (int32_t)f->events[j].tid;  /* runs of one thread: once */
    n = sort_unique(tids, n);
    for (size_t j = 0; j < n; j++)
        add_thread(l, f, k, tids[j], false);
    free(tids);
}

/* Every rank's threads, by file, then tid, one entry each. A thread that
 * called NCCL is a caller whatever its name. */
static void find_threads(const struct report *r, struct thread_list *l)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        const struct kernel_trace *k = kernel_of(r, f);
        if (!k)
            continue;
        add_callers(l, f, k);
        /* The shim's records: the threads it followed, NCCL's by name. */
        for (size_t j = 0; k == f->os && j < k->nthreads; j++)
            add_thread(l, f, k, k->threads[j].tid, is_nccl_name(k->threads[j].comm));
    }
    for (size_t i = 0; i < r->nkernels; i++)
        add_nccl_threads(l, r, &r->kernels[i]);
    if (l->n)
        qsort(l->t, l->n, sizeof *l->t, cmp_thread);
    size_t m = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (m && l->t[m - 1].file == l->t[i].file && l->t[m - 1].tid == l->t[i].tid)
            l->t[m - 1].nccl &= l->t[i].nccl;
        else
            l->t[m++] = l->t[i];
    }
    l->n = m;
}

/* ---- their time on and off the CPU ---- */

static void push(struct os_interval **a, size_t *n, struct os_interval v)
{
    /* Powers of two: the capacity follows from n. */
    if ((*n & (*n - 1)) == 0)
        *a = xrealloc(*a, (*n ? 2 * *n : 1) * sizeof **a);
    (*a)[(*n)++] = v;
}

/* Where one thread stands in the pass over its kernel's switches. Before
 * its first switch its state is unknown: a thread first seen leaving a
 * CPU ran on it since the trace began; one first seen arriving was off
 * for an unknown time, not counted. */
struct walk {
    struct os_thread *t;
    bool on, off;
    struct os_interval cur;
};

static void walk_out(struct walk *w, const struct kernel_trace *k, const struct sched_switch *s)
{
    w->t->comm = s->prev_comm;
    push(&w->t->on, &w->t->non, (struct os_interval){ w->on ? w->cur.start_ns : k->first_ns, s->ts_ns, s->cpu,
                                                      false, NULL });
    w->cur = (struct os_interval){ s->ts_ns, 0, s->cpu, sched_switch_preempted(s),
                                   k->from_shim ? NULL : s->next_comm };
    w->on = false;
    w->off = true;
}

static void walk_in(struct walk *w, const struct sched_switch *s)
{
    w->t->comm = s->next_comm;
    if (w->off) {
        w->cur.end_ns = s->ts_ns;
        push(&w->t->off, &w->t->noff, w->cur);
    }
    w->cur = (struct os_interval){ s->ts_ns, 0, s->cpu, false, NULL };
    w->on = true;
    w->off = false;
}

static void walk_end(struct walk *w, const struct kernel_trace *k)
{
    if (w->on)
        push(&w->t->on, &w->t->non, (struct os_interval){ w->cur.start_ns, UINT64_MAX, w->cur.cpu, false, NULL });
    if (w->off) {
        w->cur.end_ns = k->last_ns;
        push(&w->t->off, &w->t->noff, w->cur);
    }
}

static int cmp_walk(const void *a, const void *b)
{
    const struct walk *x = a, *y = b;
    if (x->t->kernel != y->t->kernel)
        return (uintptr_t)x->t->kernel < (uintptr_t)y->t->kernel ? -1 : 1;
    return (x->t->tid > y->t->tid) - (x->t->tid < y->t->tid);
}

/* The walks of w[0..n) (one kernel's, by tid) of thread `tid`: *first, and
 * how many (one tid may be followed in several processes' files). */
static size_t walks_of(struct walk *w, size_t n, int32_t tid, struct walk **first)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w[mid].t->tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < n && w[end].t->tid == tid)
        end++;
    *first = &w[lo];
    return end - lo;
}

/* Every thread's intervals on and off the CPU: one pass over each
 * kernel's switches, each switch handed to the threads it names. */
static void timelines(struct os_thread *t, size_t n)
{
    struct walk *w = xcalloc(n + 1, sizeof *w);
    for (size_t i = 0; i < n; i++)
        w[i].t = &t[i];
    if (n)
        qsort(w, n, sizeof *w, cmp_walk);
    for (size_t i = 0, m; i < n; i += m) {
        const struct kernel_trace *k = w[i].t->kernel;
        for (m = 1; i + m < n && w[i + m].t->kernel == k; m++)
            ;
        for (size_t j = 0; j < k->nswitches; j++) {
            const struct sched_switch *s = &k->switches[j];
            struct walk *at;
            for (size_t c = walks_of(w + i, m, s->prev_tid, &at); c--; at++)
                walk_out(at, k, s);
            if (s->next_tid == s->prev_tid)
                continue;  /* a switch to itself: it left */
            for (size_t c = walks_of(w + i, m, s->next_tid, &at); c--; at++)
                walk_in(at, s);
        }
        for (size_t j = i; j < i + m; j++)
            walk_end(&w[j], k);
    }
    free(w);
}

void os_threads_find(const struct report *r, struct os_threads_found *out)
{
    struct thread_list l = { 0 };
    find_threads(r, &l);
    timelines(l.t, l.n);
    *out = (struct os_threads_found){ l.t, l.n };
}
