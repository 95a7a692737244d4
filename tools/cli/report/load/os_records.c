/* A rank file's "os": the shim's records of its own threads' context
 * switches (NCCLTAP_OS=switch, perf_event_open), turned into the kernel
 * view the OS analysis reads from LTTng kernel traces (model.h, struct
 * kernel_trace with from_shim): one model, two sources. Each interval off
 * the CPU becomes a switch-out and a switch-in of that thread. */
#include "load.h"
#include "input_limits.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More intervals than the shim ever keeps (16,384): a damaged file. */
#define OS_MAX_OFF (1u << 20)

static bool u64_at(json_t *a, size_t i, uint64_t *v)
{
    json_t *x = json_array_get(a, i);
    if (!json_is_integer(x) || json_integer_value(x) < 0)
        return false;
    *v = (uint64_t)json_integer_value(x);
    return true;
}

/* The threads' entries by tid, then by place in the list: a crafted
 * section may list a million threads, each named by its records. */
static int cmp_entry(const void *a, const void *b)
{
    const struct kernel_thread *x = *(const struct kernel_thread *const *)a,
                               *y = *(const struct kernel_thread *const *)b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The name of `tid` (its first entry in the list), NULL when not listed. */
static const char *comm_of(const struct kernel_thread *const *by_tid, size_t n, int32_t tid)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (by_tid[mid]->tid < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && by_tid[lo]->tid == tid ? by_tid[lo]->comm : NULL;
}

static int cmp_switch(const void *a, const void *b)
{
    const struct sched_switch *x = a, *y = b;
    return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

static void load_threads(struct report *r, json_t *list, struct rank_file *f, struct kernel_trace *k)
{
    k->threads = report_alloc(r, (json_array_size(list) + 1) * sizeof *k->threads);
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *t = json_array_get(list, i), *tid = json_object_get(t, "tid"),
               *comm = json_object_get(t, "comm");
        if (!json_is_integer(tid) || json_integer_value(tid) <= 0 || json_integer_value(tid) >= REPORT_MAX_TID) {
            r->records_rejected++;
            continue;
        }
        k->threads[k->nthreads++] = (struct kernel_thread){
            .tid = (int32_t)json_integer_value(tid), .pid = (int32_t)f->pid,
            .comm = report_intern(r, json_is_string(comm) ? json_string_value(comm) : ""),
        };
    }
}

/* One [tid, cpu, out_ns, in_ns, preempted] into two switches at s. */
static bool load_off(struct report *r, json_t *o, const struct kernel_thread *const *by_tid, size_t nthreads,
                     struct sched_switch *s)
{
    uint64_t tid, cpu, out, in, preempted;
    if (!json_is_array(o) || json_array_size(o) != 5 || !u64_at(o, 0, &tid) || !u64_at(o, 1, &cpu) ||
        !u64_at(o, 2, &out) || !u64_at(o, 3, &in) || !u64_at(o, 4, &preempted) || tid == 0 ||
        tid >= REPORT_MAX_TID || cpu >= REPORT_MAX_CPUS || in < out)
        return false;
    const char *none = report_intern(r, ""), *comm = comm_of(by_tid, nthreads, (int32_t)tid);
    if (!comm)
        comm = none;
    /* prev_state: 0 runnable (preempted), 1 sleeping, as lttng-modules says. */
    s[0] = (struct sched_switch){ .ts_ns = out, .cpu = (uint32_t)cpu, .prev_tid = (int32_t)tid, .next_tid = -1,
                                  .prev_state = preempted ? 0 : 1, .prev_comm = comm, .next_comm = none };
    s[1] = (struct sched_switch){ .ts_ns = in, .cpu = (uint32_t)cpu, .prev_tid = -1, .next_tid = (int32_t)tid,
                                  .prev_comm = none, .next_comm = comm };
    return true;
}

int report_load_os(struct report *r, json_t *root, struct rank_file *f, char *why, size_t why_len)
{
    json_t *os = json_object_get(root, "os");
    if (!os)
        return 0;
    json_t *mode = json_object_get(os, "mode"), *note = json_object_get(os, "note"),
           *threads = json_object_get(os, "threads"), *off = json_object_get(os, "off");
    if (!json_is_object(os) || !json_is_string(mode) || !json_is_array(threads) || !json_is_array(off)) {
        snprintf(why, why_len, "\"os\" needs \"mode\", \"threads\" and \"off\"");
        return -1;
    }
    f->os_mode = report_intern(r, json_string_value(mode));
    f->os_note = report_intern(r, json_is_string(note) ? json_string_value(note) : "");
    size_t n = json_array_size(off);
    if (n > OS_MAX_OFF) {
        r->records_rejected += n - OS_MAX_OFF;
        n = OS_MAX_OFF;
    }
    if (!json_array_size(threads))
        return 0;
    struct kernel_trace *k = report_alloc(r, sizeof *k);
    k->host = f->host;
    k->from_shim = true;
    json_t *lost = json_object_get(os, "lost"), *dropped = json_object_get(os, "dropped"),
           *unfollowed = json_object_get(os, "unfollowed");
    k->lost = json_is_integer(lost) ? (uint64_t)json_integer_value(lost) : 0;
    k->dropped = json_is_integer(dropped) ? (uint64_t)json_integer_value(dropped) : 0;
    k->unfollowed = json_is_integer(unfollowed) ? (uint64_t)json_integer_value(unfollowed) : 0;
    load_threads(r, threads, f, k);
    const struct kernel_thread **by_tid = xcalloc(k->nthreads + 1, sizeof *by_tid);
    for (size_t i = 0; i < k->nthreads; i++)
        by_tid[i] = &k->threads[i];
    if (k->nthreads)
        qsort(by_tid, k->nthreads, sizeof *by_tid, cmp_entry);
    k->switches = report_alloc(r, (2 * n + 1) * sizeof *k->switches);
    for (size_t i = 0; i < n; i++) {
        if (load_off(r, json_array_get(off, i), by_tid, k->nthreads, &k->switches[k->nswitches]))
            k->nswitches += 2;
        else
            r->records_rejected++;
    }
    free(by_tid);
    qsort(k->switches, k->nswitches, sizeof *k->switches, cmp_switch);
    for (size_t i = 0; i < k->nswitches; i++)
        if (k->switches[i].cpu + 1 > k->ncpus)
            k->ncpus = k->switches[i].cpu + 1;
    if (k->nswitches) {
        k->first_ns = k->switches[0].ts_ns;
        k->last_ns = k->switches[k->nswitches - 1].ts_ns;
    }
    f->os = k;
    return 0;
}
