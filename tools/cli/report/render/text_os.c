/* The text report's section "OS interference": the ops whose ranks lost
 * most CPU time to the OS, with the evidence (which task ran instead,
 * which interrupt), from analyze/os_interference.c. */
#include "render.h"
#include "escape.h"
#include "summary.h"
#include "os_interference.h"
#include "util.h"

#include <inttypes.h>
#include <stdlib.h>

/* How many rows the text shows; --json has them all. */
#define OS_ROWS_SHOWN 20

static double us(uint64_t ns)
{
    return (double)ns / 1e3;
}

/* Where the view came from, what it lacks: one line each. */
static void print_sources(const struct os_sources *src, const size_t nthreads[2], FILE *out)
{
    char kernel[64] = "", shim[96] = "";
    if (src->kernel_hosts)
        snprintf(kernel, sizeof kernel, "kernel events of %zu host%s", src->kernel_hosts,
                 src->kernel_hosts == 1 ? "" : "s");
    if (src->shim_files)
        snprintf(shim, sizeof shim, "%sthe context switches %zu process%s recorded (NCCLTAP_OS)",
                 *kernel ? ", and " : "", src->shim_files, src->shim_files == 1 ? "" : "es");
    fprintf(out, "\nOS interference (%s%s; %zu calling and %zu NCCL threads followed)\n", kernel, shim,
            nthreads[0], nthreads[1]);
    if (src->shim_unused)
        fprintf(out, "  Kernel events are used for %zu process%s that also recorded %s own context\n"
                "  switches (NCCLTAP_OS): the same switches, counted once.\n", src->shim_unused,
                src->shim_unused == 1 ? "" : "es", src->shim_unused == 1 ? "its" : "their");
    if (src->lost || src->dropped || src->unfollowed)
        fprintf(out, "  Incomplete: %" PRIu64 " context-switch records lost to full rings, %" PRIu64
                " intervals dropped past the shim's bound, %" PRIu64 " threads not followed.\n", src->lost,
                src->dropped, src->unfollowed);
}

static void print_row(const struct report *r, const struct os_row *w, bool kernel, FILE *out)
{
    char op[SHOWN_MAX], by[SHOWN_MAX], thread[SHOWN_MAX];
    char late[16] = "-";
    if (w->straggler)
        snprintf(late, sizeof late, "%.1f", us(w->wait_ns));
    fprintf(out, "  %4d  %016" PRIx64 "  %6" PRIu64 "  %-13s  %9s  %9.1f  %9.1f  ", w->op->rank, w->op->comm,
            w->op->seq, shown(report_name(r, w->op->op), op), late, us(w->offcpu_ns), us(w->preempted_ns));
    if (kernel) {
        char irq[40];
        if (w->irq_name)
            snprintf(irq, sizeof irq, "%d %s", w->irq, shown(w->irq_name, by));
        else
            snprintf(irq, sizeof irq, "-");
        fprintf(out, "%-16s  %8.1f  %-16s  ", w->preempted_by ? shown(w->preempted_by, by) : "-", us(w->irq_ns),
                irq);
    }
    fprintf(out, "%s (%d)\n", w->thread ? shown(w->thread->comm, thread) : "-", w->thread ? w->thread->tid : 0);
}

static int cmp_proc_lost(const void *a, const void *b)
{
    const struct os_proc *x = *(const struct os_proc *const *)a, *y = *(const struct os_proc *const *)b;
    uint64_t lx = x->preempted_ns + x->irq_ns, ly = y->preempted_ns + y->irq_ns;
    return (lx < ly) - (lx > ly);
}

/* Each process's loss over all its ops (their windows' union), worst first:
 * the rows below are single ops, and one long preemption spans many. */
static void print_procs(const struct os_interference *os, FILE *out)
{
    const struct os_proc **p = xcalloc(os->nprocs + 1, sizeof *p);
    size_t n = 0;
    for (size_t i = 0; i < os->nprocs; i++)
        if (os->procs[i].preempted_ns + os->procs[i].irq_ns >= OS_ROW_MIN_NS)
            p[n++] = &os->procs[i];
    qsort(p, n, sizeof *p, cmp_proc_lost);
    for (size_t i = 0; i < n && i < OS_ROWS_SHOWN; i++) {
        const struct rank_file *f = p[i]->file;
        fprintf(out, "  rank %d (pid %lld): over its ops %.1f us off CPU, %.1f us of it preempted, "
                "%.1f us in interrupts\n", f->nranks ? f->ranks[0] : -1, f->pid, us(p[i]->offcpu_ns),
                us(p[i]->preempted_ns), us(p[i]->irq_ns));
    }
    free(p);
}

/* Why there is no view at all. */
static void print_none(const struct report *r, const struct os_sources *src, FILE *out)
{
    char note[SHOWN_MAX];
    if (src->refused)
        fprintf(out, "\nOS interference: not recorded: in %zu process%s %s\n", src->refused,
                src->refused == 1 ? "" : "es", shown(src->note, note));
    else if (src->off)
        fprintf(out, "\nOS interference: not recorded (NCCLTAP_OS=off)\n");
    else if (r->from_trace)
        fprintf(out, "\nOS interference: the trace has no kernel events (record them with "
                "nccltap run --lttng --kernel)\n");
}

void print_os_interference(const struct report *r, const struct report_summary *s, FILE *out)
{
    const struct os_interference *os = &s->os;
    const struct os_sources *src = &os->sources;
    if (!src->kernel_hosts && !src->shim_files) {
        print_none(r, src, out);
        return;
    }
    size_t nthreads[2] = { 0, 0 };
    for (size_t i = 0; i < os->nthreads; i++)
        nthreads[os->threads[i].nccl]++;
    print_sources(src, nthreads, out);
    if (!os->nrows) {
        fprintf(out, "  none: no op's threads lost %d us or more to preemption or "
                "interrupts\n", OS_ROW_MIN_NS / 1000);
        return;
    }
    print_procs(os, out);
    /* Who ran instead and the interrupts come from kernel traces only. */
    bool kernel = src->kernel_hosts > 0;
    fprintf(out, "  %4s  %-16s  %6s  %-13s  %9s  %9s  %9s  ", "rank", "comm", "seq", "op", "late_us",
            "offcpu_us", "preempt");
    if (kernel)
        fprintf(out, "%-16s  %8s  %-16s  ", "preempted by", "irq_us", "irq");
    fprintf(out, "thread\n");
    for (size_t i = 0; i < os->nrows && i < OS_ROWS_SHOWN; i++)
        print_row(r, &os->rows[i], kernel, out);
    if (os->nrows > OS_ROWS_SHOWN)
        fprintf(out, "  ... %zu more ops (nccltap report --json)\n", os->nrows - OS_ROWS_SHOWN);
    fprintf(out,
            "  During each op (from the call to the GPU's end; for the rank that started\n"
            "  the collective last, late_us after the first, from the first's start) the\n"
            "  rank's calling and NCCL threads: offcpu_us not running (preempt: runnable\n"
            "  while \"preempted by\" had the CPU; the rest waiting), irq_us in interrupt\n"
            "  handlers on their CPUs.%s\n", src->shim_files ? "\n  From a process's own records (NCCLTAP_OS) "
            "the kernel does not say who ran\n  instead, nor the interrupts: without a kernel trace "
            "those columns are left out." : "");
}
