/* The STRAGGLER finding's words, next step and JSON evidence: a rank
 * last to arrive while the others wait (a row of finding_kinds.c). */
#include "finding_straggler.h"
#include "finding_text.h"
#include "escape.h"
#include "format.h"
#include "steps.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

/* Where a straggler is late: at the first collective after work of its
 * own when the gap before its late collectives stands out. */
static void print_straggler_where(const struct finding *f, FILE *out)
{
    const struct straggler_evidence *e = &f->evidence.straggler;
    char op[SHOWN_MAX], late[32], other[32];
    fprintf(out, "late at %s", f->op ? shown(f->op, op) : "collectives");
    if (e->gap_late_us >= 100.0 && e->gap_late_us >= 2.0 * e->gap_other_us)
        fprintf(out, " after its own work (%s since its previous collective, %s before the others)",
                finding_duration(e->gap_late_us, late), finding_duration(e->gap_other_us, other));
    if (e->steps)
        fprintf(out, ", collective %zu of %zu a step, in %zu of %zu steps", e->steps->late.pos + 1,
                e->steps->period, e->steps->late.steps, e->steps->nsteps - e->steps->late.from);
}

/* A straggler's lateness the OS explains (the OS rows of its late
 * instances). `sep` before it, as for print_os_worst. */
static void print_straggler_os(const struct straggler_evidence *e, const char *sep, FILE *out)
{
    char d[32];
    if (e->late_os_us > 0.0)
        fprintf(out, "%sit was descheduled before its calls for %.0f%% of that wait (%s preempted: see OS "
                "interference)", sep, 100.0 * e->late_os_share, finding_duration(e->late_os_us, d));
}

void finding_straggler_line(const struct finding *f, const char *sep, FILE *out)
{
    const struct straggler_evidence *e = &f->evidence.straggler;
    char d[32], total[32], n[32], of[32], m[32], c[32];
    fprintf(out, "rank %d", f->rank);
    finding_process(f->file, out);
    fprintf(out, " on comm %016" PRIx64 ": the others waited %s for it", f->comm, finding_duration(f->cost_us, total));
    fputs(sep, out);
    print_straggler_where(f, out);
    fputs(sep, out);
    if (!isnan(e->share))
        fprintf(out, "%.0f%% of their NCCL time; ", 100.0 * e->share);
    fprintf(out, "%s of %s collectives told, %s each; measured over %s", finding_grouped(e->last, n),
            finding_grouped(e->told, of), finding_duration(e->wait_us_mean, d), finding_grouped(e->measured, m));
    if (e->calls > e->measured)
        fprintf(out, " of %s calls, the rest estimated", finding_grouped(e->calls, c));
    print_straggler_os(e, sep, out);
}

void finding_straggler_next(const struct finding *f, FILE *out)
{
    char op[SHOWN_MAX];
    fprintf(out, "what rank %d does before its %s: py-spy record --pid ", f->rank, f->op ? shown(f->op, op)
                                                                                         : "collectives");
    finding_pid(f, out);
    finding_on_host(f, out);
    fputs(" (or nsys on that rank); throttling: nvidia-smi -q -d PERFORMANCE there", out);
}

void finding_straggler_evidence(const struct finding *f, json_t *j)
{
    const struct straggler_evidence *e = &f->evidence.straggler;
    json_object_set_new(j, "last", json_integer((json_int_t)e->last));
    json_object_set_new(j, "instances", json_integer((json_int_t)e->told));
    json_object_set_new(j, "wait_us_mean", json_real(e->wait_us_mean));
    json_object_set_new(j, "others_wait_us", json_real(f->cost_us));
    json_object_set_new(j, "nccl_time_share", isnan(e->share) ? json_null() : json_real(e->share));
    json_object_set_new(j, "measured", json_integer((json_int_t)e->measured));
    json_object_set_new(j, "calls", json_integer((json_int_t)e->calls));
    json_object_set_new(j, "gap_before_late_us", json_real(e->gap_late_us));
    json_object_set_new(j, "gap_before_others_us", json_real(e->gap_other_us));
    json_object_set_new(j, "descheduled_late_us", e->late_os_us > 0.0 ? json_real(e->late_os_us) : json_null());
    json_object_set_new(j, "descheduled_late_share",
                        e->late_os_us > 0.0 ? json_real(e->late_os_share) : json_null());
    /* Where in the step, when it is the steps' usual late rank (steps.h). */
    json_object_set_new(j, "step_pos", e->steps ? json_integer((json_int_t)e->steps->late.pos) : json_null());
    json_object_set_new(j, "step_period", e->steps ? json_integer((json_int_t)e->steps->period) : json_null());
    json_object_set_new(j, "late_steps", e->steps ? json_integer((json_int_t)e->steps->late.steps) : json_null());
}
