#include "trace_kernel.h"
#include "input_limits.h"
#include "load.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* An irq_handler_entry waiting for its exit, per CPU. */
struct open_irq {
    uint64_t start_ns;
    int irq;
    const char *name;
    bool open;
};

struct tk_host {
    struct kernel_trace t;
    struct report *r;        /* whose strings names are interned in */
    size_t cap_switches, cap_wakeups, cap_irqs, cap_threads;
    struct open_irq *open;   /* by CPU */
    size_t nopen;
};

/* Millions of switches share a few hundred task names: one copy each. */
#define intern(h, s) report_intern((h)->r, (s))

static struct tk_host *host(struct trace_kernel *k, struct report *r, const char *name)
{
    for (size_t i = 0; i < k->nhosts; i++)
        if (strcmp(k->hosts[i].t.host, name) == 0)
            return &k->hosts[i];
    k->hosts = xgrow(k->hosts, &k->cap, k->nhosts, sizeof *k->hosts, 64);
    struct tk_host *h = &k->hosts[k->nhosts++];
    memset(h, 0, sizeof *h);
    h->r = r;
    h->t.host = report_intern(r, name);
    return h;
}

static struct open_irq *open_irq(struct tk_host *h, uint32_t cpu)
{
    if (cpu >= h->nopen) {
        size_t n = cpu + 1;
        h->open = xrealloc(h->open, n * sizeof *h->open);
        memset(h->open + h->nopen, 0, (n - h->nopen) * sizeof *h->open);
        h->nopen = n;
    }
    return &h->open[cpu];
}

static void on_irq(struct tk_host *h, const struct tev *e)
{
    struct open_irq *o = open_irq(h, e->cpu);
    if (e->kind == TEV_IRQ_ENTRY) {
        *o = (struct open_irq){ e->ts_ns, (int)e->irq, intern(h, e->irq_name), true };
        return;
    }
    /* An exit without its entry (the trace began inside the handler) has
     * no known start: left out. */
    if (!o->open || o->irq != (int)e->irq)
        return;
    struct kernel_trace *t = &h->t;
    t->irqs = xgrow(t->irqs, &h->cap_irqs, t->nirqs, sizeof *t->irqs, 64);
    t->irqs[t->nirqs++] = (struct irq_run){ o->start_ns, e->ts_ns, e->cpu, o->irq, o->name };
    o->open = false;
}

static void add_thread(struct tk_host *h, const struct tev *e)
{
    struct kernel_trace *t = &h->t;
    t->threads = xgrow(t->threads, &h->cap_threads, t->nthreads, sizeof *t->threads, 64);
    t->threads[t->nthreads++] = (struct kernel_thread){ (int32_t)e->tid, (int32_t)e->pid,
                                                        intern(h, e->comm) };
}

void trace_kernel_add(struct trace_kernel *k, struct report *r, const struct tev *e)
{
    /* CPUs index the timeline's tracks and the open interrupts: one past
     * any real machine's is a damaged or forged trace. */
    if (e->cpu >= REPORT_MAX_CPUS) {
        r->records_rejected++;
        if (k->bad_cpu++ == 0)
            msg("%s: a kernel event on CPU %u (more than %u CPUs) left out, with any like it",
                r->dir ? r->dir : "the trace", e->cpu, REPORT_MAX_CPUS);
        return;
    }
    struct tk_host *h = host(k, r, e->host);
    struct kernel_trace *t = &h->t;
    if (e->cpu + 1 > t->ncpus)
        t->ncpus = e->cpu + 1;
    if (!t->first_ns || e->ts_ns < t->first_ns)
        t->first_ns = e->ts_ns;
    if (e->ts_ns > t->last_ns)
        t->last_ns = e->ts_ns;
    switch (e->kind) {
    case TEV_SCHED_SWITCH:
        t->switches = xgrow(t->switches, &h->cap_switches, t->nswitches, sizeof *t->switches, 64);
        t->switches[t->nswitches++] = (struct sched_switch){
            .ts_ns = e->ts_ns, .cpu = e->cpu, .prev_tid = (int32_t)e->prev_tid,
            .next_tid = (int32_t)e->next_tid, .prev_state = e->prev_state,
            .prev_comm = intern(h, e->prev_comm), .next_comm = intern(h, e->next_comm),
        };
        break;
    case TEV_SCHED_WAKEUP:
        t->wakeups = xgrow(t->wakeups, &h->cap_wakeups, t->nwakeups, sizeof *t->wakeups, 64);
        t->wakeups[t->nwakeups++] = (struct sched_wakeup){
            e->ts_ns, (int32_t)e->tid, (uint32_t)e->target_cpu, intern(h, e->comm) };
        break;
    case TEV_PROCESS_FORK:
    case TEV_STATEDUMP_PROCESS:
        add_thread(h, e);
        break;
    case TEV_IRQ_ENTRY:
    case TEV_IRQ_EXIT:
        on_irq(h, e);
        break;
    default:
        break;
    }
}

static int cmp_irq(const void *a, const void *b)
{
    const struct irq_run *x = a, *y = b;
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

void trace_kernel_take(struct trace_kernel *k, struct report *r)
{
    r->kernels = xcalloc(k->nhosts ? k->nhosts : 1, sizeof *r->kernels);
    for (size_t i = 0; i < k->nhosts; i++) {
        struct tk_host *h = &k->hosts[i];
        /* Runs end in time order; the analyses want them by start. */
        if (h->t.nirqs)
            qsort(h->t.irqs, h->t.nirqs, sizeof *h->t.irqs, cmp_irq);
        r->kernels[r->nkernels++] = h->t;
        free(h->open);
    }
    free(k->hosts);
    memset(k, 0, sizeof *k);
}

void trace_kernel_free(struct trace_kernel *k)
{
    for (size_t i = 0; i < k->nhosts; i++) {
        kernel_trace_free(&k->hosts[i].t);
        free(k->hosts[i].open);
    }
    free(k->hosts);
    memset(k, 0, sizeof *k);
}

void kernel_trace_free(struct kernel_trace *t)
{
    free(t->switches);
    free(t->wakeups);
    free(t->irqs);
    free(t->threads);
    memset(t, 0, sizeof *t);
}
