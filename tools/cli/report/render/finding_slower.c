/* The SLOWER finding's words, next step and JSON evidence (a row of
 * finding_kinds.c). */
#include "finding_slower.h"
#include "escape.h"
#include "finding_text.h"
#include "format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

static const struct step_change *change_of(const struct slower_evidence *e)
{
    return e->basis == SLOWER_TRANSFER ? &e->steps->slower : &e->steps->waiting;
}

/* "AllReduce 1M (collective 1 of 2 a step)" */
static void print_position(const struct finding *f, size_t pos, FILE *out)
{
    char size[16], op[SHOWN_MAX];
    fprintf(out, "%s %s (collective %zu of %zu a step)", shown(f->op, op), human_bytes((double)f->bytes, size),
            pos + 1,
            f->evidence.slower.steps->period);
}

static void print_transfer(const struct finding *f, const char *sep, FILE *out)
{
    const struct comm_steps *c = f->evidence.slower.steps;
    const struct step_position *p = &c->positions[c->slower.pos];
    print_position(f, c->slower.pos, out);
    fprintf(out, " %+.0f%% (transfer %.1f -> %.1f us", 100 * (p->transfer_after_us / p->transfer_before_us - 1),
            p->transfer_before_us, p->transfer_after_us);
    if (c->timed)
        fprintf(out, ", busbw %.2f -> %.2f GB/s", p->busbw_before_gbs, p->busbw_after_gbs);
    fputc(')', out);
    fputs(sep, out);
    char before[32], after[32];
    fprintf(out, "the step's transfer %s -> %s (%+.0f%%) on every rank, over the %zu steps since%s",
            finding_duration(c->slower.before_us, before), finding_duration(c->slower.after_us, after),
            100 * (c->slower.after_us / c->slower.before_us - 1), c->nsteps - c->slower.from,
            c->timed ? "" : " (from stamps, to the polls' resolution)");
}

static void print_waiting(const struct finding *f, const char *sep, FILE *out)
{
    const struct comm_steps *c = f->evidence.slower.steps;
    char before[32], after[32], wait[32];
    fprintf(out, "waiting for the last rank %s -> %s a step, over the %zu steps since",
            finding_duration(c->waiting.before_us, before), finding_duration(c->waiting.after_us, after),
            c->nsteps - c->waiting.from);
    if (f->rank < 0)
        return;
    fputs(sep, out);
    fprintf(out, "rank %d", f->rank);
    finding_process(f->file, out);
    fputs(" the last at ", out);
    print_position(f, c->late.pos, out);
    fprintf(out, " in %zu of them, the others waiting %s median", c->late.steps,
            finding_duration(c->late.wait_us_median, wait));
}

void finding_slower_line(const struct finding *f, const char *sep, FILE *out)
{
    const struct step_change *ch = change_of(&f->evidence.slower);
    fprintf(out, "from step %zu (seq %" PRIu64 ") on comm %016" PRIx64 ": ", ch->from, f->seq, f->comm);
    if (f->evidence.slower.basis == SLOWER_TRANSFER)
        print_transfer(f, sep, out);
    else
        print_waiting(f, sep, out);
}

void finding_slower_next(const struct finding *f, FILE *out)
{
    if (f->evidence.slower.basis == SLOWER_TRANSFER)
        fputs("what changed at that step on the links: nvidia-smi nvlink -s and -e (errors, speed), "
              "ibstat, dmesg for Xid and link retraining; the other jobs on these hosts", out);
    else if (f->rank >= 0) {
        fprintf(out, "what rank %d does before that collective since then: py-spy record --pid ", f->rank);
        finding_pid(f, out);
        finding_on_host(f, out);
    } else {
        fputs("which rank is late in the steps since: see Steps and Stragglers", out);
    }
}

static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

void finding_slower_evidence(const struct finding *f, json_t *j)
{
    const struct slower_evidence *e = &f->evidence.slower;
    const struct step_change *ch = change_of(e);
    json_object_set_new(j, "basis", json_string(e->basis == SLOWER_TRANSFER ? "transfer" : "waiting"));
    json_object_set_new(j, "from_step", json_integer((json_int_t)ch->from));
    json_object_set_new(j, "steps_since", json_integer((json_int_t)(e->steps->nsteps - ch->from)));
    json_object_set_new(j, "before_us", real_or_null(ch->before_us));
    json_object_set_new(j, "after_us", real_or_null(ch->after_us));
    size_t pos = e->basis == SLOWER_TRANSFER ? ch->pos : e->steps->late.pos;
    json_object_set_new(j, "pos", f->op ? json_integer((json_int_t)pos) : json_null());
    if (e->basis == SLOWER_TRANSFER) {
        const struct step_position *p = &e->steps->positions[ch->pos];
        json_object_set_new(j, "transfer_before_us", real_or_null(p->transfer_before_us));
        json_object_set_new(j, "transfer_after_us", real_or_null(p->transfer_after_us));
        json_object_set_new(j, "busbw_before_gbs", e->steps->timed ? real_or_null(p->busbw_before_gbs) : json_null());
        json_object_set_new(j, "busbw_after_gbs", e->steps->timed ? real_or_null(p->busbw_after_gbs) : json_null());
    }
}
