/* The text report's section "OS interference": the ops whose ranks lost
 * most CPU time to the OS, with the evidence (which task ran instead,
 * which interrupt), from analyze/os_interference.c. */
#include "render.h"
#include "escape.h"
#include "summary.h"

#include <inttypes.h>

/* How many rows the text shows; --json has them all. */
#define OS_ROWS_SHOWN 20

static double us(uint64_t ns)
{
    return (double)ns / 1e3;
}

void print_os_interference(const struct report *r, const struct report_summary *s, FILE *out)
{
    if (!r->from_trace)
        return;
    if (!r->nkernels) {
        fprintf(out, "\nOS interference: the trace has no kernel events (record them with "
                "nccltap run --lttng --kernel)\n");
        return;
    }
    const struct os_interference *os = &s->os;
    size_t nthreads[2] = { 0, 0 };
    for (size_t i = 0; i < os->nthreads; i++)
        nthreads[os->threads[i].nccl]++;
    fprintf(out, "\nOS interference (kernel events of %zu host%s; %zu calling and %zu NCCL "
            "threads followed)\n", r->nkernels, r->nkernels == 1 ? "" : "s", nthreads[0],
            nthreads[1]);
    if (!os->nrows) {
        fprintf(out, "  none: no op's threads lost %d us or more to preemption or "
                "interrupts\n", OS_ROW_MIN_NS / 1000);
        return;
    }
    fprintf(out, "  %4s  %-16s  %6s  %-13s  %9s  %9s  %9s  %-16s  %8s  %-16s  %s\n", "rank",
            "comm", "seq", "op", "late_us", "offcpu_us", "preempt", "preempted by", "irq_us", "irq",
            "thread");
    for (size_t i = 0; i < os->nrows && i < OS_ROWS_SHOWN; i++) {
        const struct os_row *w = &os->rows[i];
        char irq[40], op[SHOWN_MAX], by[SHOWN_MAX], thread[SHOWN_MAX];
        if (w->irq_name)
            snprintf(irq, sizeof irq, "%d %s", w->irq, shown(w->irq_name, by));
        else
            snprintf(irq, sizeof irq, "-");
        char late[16] = "-";
        if (w->straggler)
            snprintf(late, sizeof late, "%.1f", us(w->wait_ns));
        fprintf(out, "  %4d  %016" PRIx64 "  %6" PRIu64 "  %-13s  %9s  %9.1f  %9.1f  %-16s  %8.1f  "
                "%-16s  %s (%d)\n", w->op->rank, w->op->comm, w->op->seq,
                shown(report_name(r, w->op->op), op), late, us(w->offcpu_ns), us(w->preempted_ns),
                w->preempted_by ? shown(w->preempted_by, by) : "-",
                us(w->irq_ns), irq, w->thread ? shown(w->thread->comm, thread) : "-",
                w->thread ? w->thread->tid : 0);
    }
    if (os->nrows > OS_ROWS_SHOWN)
        fprintf(out, "  ... %zu more ops (nccltap report --json)\n", os->nrows - OS_ROWS_SHOWN);
    fprintf(out,
            "  During each op (from the call to the GPU's end; for the rank that started\n"
            "  the collective last, late_us after the first, from the first's start) the\n"
            "  rank's calling and NCCL threads: offcpu_us not running (preempt: runnable\n"
            "  while \"preempted by\" had the CPU; the rest waiting), irq_us in interrupt\n"
            "  handlers on their CPUs.\n");
}
