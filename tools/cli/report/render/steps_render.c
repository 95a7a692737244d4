/* The Steps section (analyze/steps.h, s->steps): each communicator's
 * repeating step, its collectives, its figures, its slowest steps and
 * what changed over them; and --json's "steps". */
#include "render.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "escape.h"
#include "format.h"
#include "summary.h"

#define STEPS_SLOWEST 3  /* slowest steps listed per communicator */

static const char *position_name(const struct report *r, const struct comm_steps *c, size_t pos, char buf[64])
{
    char size[16], op[SHOWN_MAX];
    const struct step_position *p = &c->positions[pos];
    int n = snprintf(buf, 64, "%zu %s %s", pos + 1, shown(report_name(r, p->op), op),
                     human_bytes((double)p->bytes, size));
    if (p->tag && n > 0 && n < 64)
        snprintf(buf + n, (size_t)(64 - n), " (tag %" PRIu64 ")", p->tag);
    return buf;
}

/* Each collective of the step: its transfer, and its busbw where timed
 * (a stamp's transfer is within the polls' resolution: no bandwidth). */
static void print_positions(const struct report *r, const struct comm_steps *c, FILE *out)
{
    bool after = c->slower.found;
    size_t listed = c->period < 8 ? c->period : 8;
    bool tagged = false;  /* a tag column where a listed collective has a tag */
    for (size_t p = 0; p < listed; p++)
        tagged |= c->positions[p].tag != 0;
    fprintf(out, "    %4s  %-14s %6s %12s %10s%s%s%s\n", "pos", "op", "size", "transfer_us", c->timed ? "busbw GB/s" : "",
            after ? "  after: transfer_us" : "", after && c->timed ? " busbw GB/s" : after && tagged ? "           " : "",
            tagged ? "  tag" : "");
    for (size_t p = 0; p < listed; p++) {
        const struct step_position *sp = &c->positions[p];
        char size[16], op[SHOWN_MAX];
        fprintf(out, "    %4zu  %-14s %6s %12.1f", p + 1, shown(report_name(r, sp->op), op),
                human_bytes((double)sp->bytes, size), sp->transfer_before_us);
        if (c->timed)
            fprintf(out, " %10.2f", sp->busbw_before_gbs);
        else if (after || tagged)
            fprintf(out, " %10s", "");
        if (after)
            fprintf(out, "  %19.1f", sp->transfer_after_us);
        if (after && c->timed)
            fprintf(out, " %10.2f", sp->busbw_after_gbs);
        else if (after && tagged)
            fprintf(out, " %10s", "");
        if (sp->tag)  /* the program's label of these calls (NCCL 2.31's userProfilerTag) */
            fprintf(out, "  %3" PRIu64, sp->tag);
        fputc('\n', out);
    }
    if (listed < c->period)
        fprintf(out, "    ... %zu more collectives a step (--json has them all)\n", c->period - listed);
}

static int cmp_comm_us(const void *a, const void *b)
{
    const struct step *x = *(const struct step *const *)a, *y = *(const struct step *const *)b;
    return (x->comm_us < y->comm_us) - (x->comm_us > y->comm_us);
}

static void print_slowest(const struct report *r, const struct comm_steps *c, FILE *out)
{
    const struct step **v = malloc(c->nsteps * sizeof *v);
    if (!v)
        return;
    for (size_t k = 0; k < c->nsteps; k++)
        v[k] = &c->steps[k];
    qsort(v, c->nsteps, sizeof *v, cmp_comm_us);
    fputs("    slowest steps by time in their collectives:\n", out);
    for (size_t i = 0; i < c->nsteps && i < STEPS_SLOWEST; i++) {
        const struct step *s = v[i];
        char pos[64];
        fprintf(out, "      step %zu (seq %" PRIu64 ") %.3f ms", (size_t)(s - c->steps), s->first_seq, s->comm_us / 1e3);
        if (s->late_rank >= 0)
            fprintf(out, ", of it waiting %.3f ms, for rank %d most, at %s", s->wait_us / 1e3, s->late_rank,
                    position_name(r, c, s->late_pos, pos));
        fputc('\n', out);
    }
    free(v);
}

static void print_changes(const struct report *r, const struct comm_steps *c, FILE *out)
{
    char pos[64];
    if (c->slower.found) {
        const struct step_position *p = &c->positions[c->slower.pos];
        fprintf(out, "    SLOWER from step %zu (seq %" PRIu64 "): transfer %.3f -> %.3f ms a step (%+.0f%%);"
                " most at %s: %.1f -> %.1f us", c->slower.from, c->steps[c->slower.from].first_seq,
                c->slower.before_us / 1e3, c->slower.after_us / 1e3,
                100 * (c->slower.after_us / c->slower.before_us - 1), position_name(r, c, c->slower.pos, pos),
                p->transfer_before_us, p->transfer_after_us);
        if (c->timed)
            fprintf(out, " (busbw %.2f -> %.2f GB/s)", p->busbw_before_gbs, p->busbw_after_gbs);
        fputc('\n', out);
    }
    if (c->waiting.found)
        fprintf(out, "    MORE WAITING from step %zu (seq %" PRIu64 "): %.3f -> %.3f ms a step\n", c->waiting.from,
                c->steps[c->waiting.from].first_seq, c->waiting.before_us / 1e3, c->waiting.after_us / 1e3);
    if (c->late.rank >= 0)
        fprintf(out, "    rank %d the last to arrive at %s in %zu of %zu steps%s, the others waiting %.3f ms"
                " median\n", c->late.rank, position_name(r, c, c->late.pos, pos), c->late.steps,
                c->nsteps - c->late.from, c->late.from ? " since the change" : "", c->late.wait_us_median / 1e3);
}

void print_steps(const struct report *r, const struct report_summary *s, FILE *out)
{
    const struct steps *st = &s->steps;
    if (!st->ncomms && !st->without)
        return;
    fputs("\nSteps: the pattern of collectives each communicator repeats, found from its calls\n", out);
    if (!st->ncomms) {
        fprintf(out, "  None found in %zu communicator%s: no pattern of collectives that repeats, or one\n"
                "  collective repeated with no gap between steps\n", st->without, st->without == 1 ? "" : "s");
        return;
    }
    for (size_t i = 0; i < st->ncomms; i++) {
        const struct comm_steps *c = &st->comms[i];
        fprintf(out, "  comm %016" PRIx64 ": %zu steps of %zu collective%s from seq %" PRIu64 " (%s)\n", c->comm,
                c->nsteps, c->period, c->period == 1 ? "" : "s", c->first_seq,
                c->by_marks ? "at the program's nccltap_step() marks"
                : c->by_gap ? "each after the host's longest time between calls"
                            : "the pattern of ops and sizes, from its longest gap");
        fprintf(out, "    step %.3f ms median; in its collectives %.3f ms, of it waiting for the last rank %.3f ms",
                c->step_us_median / 1e3, c->comm_us_median / 1e3, c->wait_us_median / 1e3);
        fprintf(out, ", transfer %.3f ms\n", c->transfer_us_median / 1e3);
        if (c->by_marks)
            fprintf(out, "    the program marked %zu steps with collectives of this communicator (the %zu above: "
                    "those of %zu alike)\n", c->marked, c->nsteps, c->period);
        if (c->before || c->after)
            fprintf(out, "    outside the steps: %zu collective%s before the first (set-up, or a first step unlike the rest), "
                    "%zu after the last\n", c->before, c->before == 1 ? "" : "s", c->after);
        if (!c->timed)
            fputs("    (steps measured from stamps, to the polls' resolution: NCCLTAP_TIMING=all times each)\n", out);
        print_positions(r, c, out);
        print_slowest(r, c, out);
        print_changes(r, c, out);
    }
    if (st->without)
        fprintf(out, "  %zu more communicator%s with no steps found\n", st->without, st->without == 1 ? "" : "s");
}

static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *change_json(const struct comm_steps *c, const struct step_change *ch, bool pos)
{
    if (!ch->found)
        return json_null();
    json_t *o = json_pack("{s:I, s:I, s:o, s:o, s:o}", "from_step", (json_int_t)ch->from, "from_seq",
                          (json_int_t)c->steps[ch->from].first_seq, "before_us", real_or_null(ch->before_us),
                          "after_us", real_or_null(ch->after_us), "t", real_or_null(ch->t));
    if (o && pos)
        json_object_set_new(o, "pos", json_integer((json_int_t)ch->pos));
    return o ? o : json_null();
}

/* A tag: a number, or a decimal string past json_exact_integer (as the
 * Perfetto trace's); null for none. */
static json_t *tag_json(uint64_t tag)
{
    char big[24];
    snprintf(big, sizeof big, "%" PRIu64, tag);
    return !tag ? json_null() : json_exact_integer(tag) ? json_integer((json_int_t)tag) : json_string(big);
}

static json_t *positions_json(const struct report *r, const struct comm_steps *c)
{
    json_t *a = json_array();
    for (size_t p = 0; p < c->period; p++) {
        const struct step_position *sp = &c->positions[p];
        json_t *o = json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o}", "op", report_name(r, sp->op), "bytes",
                              (json_int_t)sp->bytes, "transfer_before_us", real_or_null(sp->transfer_before_us),
                              "transfer_after_us", real_or_null(sp->transfer_after_us), "busbw_before_gbs",
                              real_or_null(sp->busbw_before_gbs), "busbw_after_gbs",
                              real_or_null(sp->busbw_after_gbs), "tag", tag_json(sp->tag));
        if (o)
            json_array_append_new(a, o);
    }
    return a;
}

static json_t *each_step_json(const struct comm_steps *c)
{
    json_t *a = json_array();
    for (size_t k = 0; k < c->nsteps; k++) {
        const struct step *s = &c->steps[k];
        json_array_append_new(a, json_pack("{s:I, s:o, s:o, s:o, s:o, s:i, s:o, s:I, s:I}", "first_seq",
                                           (json_int_t)s->first_seq, "step_us", real_or_null(s->step_us), "comm_us",
                                           real_or_null(s->comm_us), "wait_us", real_or_null(s->wait_us),
                                           "transfer_us", real_or_null(s->transfer_us), "late_rank", s->late_rank,
                                           "late_us", real_or_null(s->late_us), "late_pos", (json_int_t)s->late_pos,
                                           "missing", (json_int_t)s->missing));
    }
    return a;
}

static json_t *late_json(const struct comm_steps *c)
{
    if (c->late.rank < 0)
        return json_null();
    json_t *o = json_pack("{s:i, s:I, s:I, s:o, s:I}", "rank", c->late.rank, "pos", (json_int_t)c->late.pos,
                          "steps", (json_int_t)c->late.steps, "wait_us_median", real_or_null(c->late.wait_us_median),
                          "from_step", (json_int_t)c->late.from);
    return o ? o : json_null();
}

json_t *steps_json(const struct report *r, const struct report_summary *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->steps.ncomms; i++) {
        const struct comm_steps *c = &s->steps.comms[i];
        char id[17];
        snprintf(id, sizeof id, "%016" PRIx64, c->comm);
        json_t *o = json_pack("{s:s, s:i, s:I, s:I, s:b, s:b, s:I, s:I, s:o, s:o, s:o, s:o}", "comm", id, "nranks",
                              c->nranks, "period", (json_int_t)c->period, "pattern", (json_int_t)c->pattern,
                              "by_marks", c->by_marks, "by_gap", c->by_gap, "first_seq", (json_int_t)c->first_seq, "nsteps", (json_int_t)c->nsteps,
                              "step_us_median", real_or_null(c->step_us_median), "comm_us_median",
                              real_or_null(c->comm_us_median), "wait_us_median", real_or_null(c->wait_us_median),
                              "transfer_us_median", real_or_null(c->transfer_us_median));
        if (!o)
            continue;
        if (c->by_marks)
            json_object_set_new(o, "marked", json_integer((json_int_t)c->marked));
        json_object_set_new(o, "before", json_integer((json_int_t)c->before));
        json_object_set_new(o, "after", json_integer((json_int_t)c->after));
        json_object_set_new(o, "positions", positions_json(r, c));
        json_object_set_new(o, "slower", change_json(c, &c->slower, true));
        json_object_set_new(o, "more_waiting", change_json(c, &c->waiting, false));
        json_object_set_new(o, "late", late_json(c));
        json_object_set_new(o, "steps", each_step_json(c));
        json_array_append_new(a, o);
    }
    return a;
}
