/* The OS finding's words, next step and JSON evidence: a rank's threads
 * descheduled before its calls while the others waited (a row of
 * finding_kinds.c). */
#include "finding_os.h"
#include "finding_text.h"
#include "escape.h"
#include "format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

/* The OS finding's worst op: its thread, the time off the CPU, preempted.
 * `sep` before it: a new line in the text (120 columns), "; " elsewhere. */
static void print_os_worst(const struct finding *f, const char *sep, FILE *out)
{
    const struct os_evidence *e = &f->evidence.os;
    if (!f->op)
        return;
    char off[32], pre[32], thread[SHOWN_MAX], op[SHOWN_MAX];
    fprintf(out, "%sits %s thread%s%s was off CPU for %s during %s seq %" PRIu64, sep,
            e->nccl_thread ? "NCCL" : "calling", e->nccl_thread ? " " : "",
            e->nccl_thread && e->thread ? shown(e->thread, thread) : "", finding_duration(e->offcpu_us, off),
            shown(f->op, op), f->seq);
    if (f->replay)
        fprintf(out, " replay %" PRIu64, f->replay);
    if (e->preempted_us > 0)
        fprintf(out, ", preempted %s", finding_duration(e->preempted_us, pre));
}

void finding_os_line(const struct finding *f, const char *sep, FILE *out)
{
    const struct os_evidence *e = &f->evidence.os;
    char d[32], by[SHOWN_MAX];
    fprintf(out, "rank %d", f->rank);
    finding_process(f->file, out);
    fprintf(out, " descheduled before its calls: the others waited %s for it (%.0f%% of their NCCL time",
            finding_duration(e->explained_us, d), 100.0 * e->share);
    if (e->preempted_by)
        fprintf(out, "; it was preempted mostly by %s", shown(e->preempted_by, by));
    fputc(')', out);
    print_os_worst(f, sep, out);
}

void finding_os_next(const struct finding *f, FILE *out)
{
    fputs("what ran instead: nccltap run --lttng (the kernel traced too); give its threads their own cores "
          "(taskset, numactl), and see /proc/interrupts", out);
    finding_on_host(f, out);
}

void finding_os_evidence(const struct finding *f, json_t *j)
{
    const struct os_evidence *e = &f->evidence.os;
    json_object_set_new(j, "explained_wait_us", json_real(e->explained_us));
    json_object_set_new(j, "nccl_time_share", json_real(e->share));
    json_object_set_new(j, "preempted_by", e->preempted_by ? json_string(e->preempted_by) : json_null());
    json_object_set_new(j, "worst_op", f->op ? json_string(f->op) : json_null());
    json_object_set_new(j, "worst_seq", json_integer((json_int_t)f->seq));
    if (f->replay)  /* an execution of the captured call worst_seq */
        json_object_set_new(j, "worst_replay", json_integer((json_int_t)f->replay));
    json_object_set_new(j, "worst_offcpu_us", json_real(e->offcpu_us));
    json_object_set_new(j, "worst_preempted_us", json_real(e->preempted_us));
}
