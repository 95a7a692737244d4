/* The HTML page's Steps (analyze/steps.h, s->steps): per communicator
 * with steps, one bar a step, its time in collectives split into waiting
 * for the last rank (orange) and the rest (blue), the steps whose late
 * rank is the communicator's usual one marked, and where the steps got
 * slower (a change point) a line there. Past STEPS_MAX_BARS steps, a bar
 * is the mean of several. */
#include "html_charts.h"
#include "html_out.h"
#include "summary.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#define STEPS_MAX_BARS 400
#define STEPS_MAX_COMMS 4

struct step_bars {
    size_t per;                  /* steps a bar */
    double left, base, bw;
    struct svg_scale y;
};

/* The mean of bar i's steps: time in collectives, waiting; whether the
 * usual late rank was late in most of them. */
static void bar_of(const struct comm_steps *c, const struct step_bars *b, size_t i, double *comm, double *wait,
                   bool *late)
{
    size_t from = i * b->per, to = from + b->per < c->nsteps ? from + b->per : c->nsteps, n = 0, lates = 0;
    *comm = *wait = 0;
    for (size_t k = from; k < to; k++) {
        *comm += c->steps[k].comm_us;
        *wait += fmin(c->steps[k].wait_us, c->steps[k].comm_us);
        lates += c->late.rank >= 0 && c->steps[k].late_rank == c->late.rank;
        n++;
    }
    *comm /= (double)(n ? n : 1);
    *wait /= (double)(n ? n : 1);
    *late = 2 * lates > n;
}

static void print_bar(const struct comm_steps *c, const struct step_bars *b, size_t i, FILE *out)
{
    double comm, wait;
    bool late;
    bar_of(c, b, i, &comm, &wait, &late);
    double x = b->left + b->bw * (double)i, w = b->bw > 2 ? b->bw - 1 : b->bw;
    fprintf(out, "<g class=\"step\"><title>step %zu", i * b->per);
    if (b->per > 1)
        fprintf(out, " to %zu (mean)", (i + 1) * b->per - 1);
    fprintf(out, ": in collectives %.3f ms, waiting %.3f ms%s</title>", comm / 1e3, wait / 1e3,
            late ? "; the usual late rank was last" : "");
    double y_comm = svg_at(&b->y, comm / 1e3), y_rest = svg_at(&b->y, (comm - wait) / 1e3);
    fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>", x, y_rest, w,
            b->base - y_rest, HTML_BLUE);
    fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>", x, y_comm, w,
            y_rest - y_comm, HTML_ORANGE);
    if (late)
        fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"3\" fill=\"%s\"/>", x, y_comm - 4, w,
                HTML_VERMILION);
    fputs("</g>\n", out);
}

/* A dashed line at the change point, and its words. */
static void print_change(const struct step_bars *b, const struct step_change *ch, const char *what, FILE *out)
{
    if (!ch->found)
        return;
    double x = b->left + b->bw * ((double)ch->from / (double)b->per);
    fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"4 3\"/>"
            "<text class=\"late-mark\" x=\"%.1f\" y=\"%.1f\">%s from step %zu</text>\n", x, x, b->y.p1, b->base,
            HTML_VERMILION, x + 3, b->y.p1 + 10, what, ch->from);
}

static void print_comm(const struct comm_steps *c, FILE *out)
{
    struct step_bars b = { .per = (c->nsteps + STEPS_MAX_BARS - 1) / STEPS_MAX_BARS, .left = 70, .base = 40 + 200 };
    size_t n = (c->nsteps + b.per - 1) / b.per;
    b.bw = fmin(20, fmax(1, 800.0 / (double)n));
    double max = 0;
    for (size_t k = 0; k < c->nsteps; k++)
        max = fmax(max, c->steps[k].comm_us / 1e3);
    double step, top = svg_nice_max(max, &step);
    b.y = (struct svg_scale){ 0, top, b.base, 40, false };
    fprintf(out, "<h3>comm %016" PRIx64 ": %zu steps of %zu collectives</h3>\n<div class=\"chart\">", c->comm,
            c->nsteps, c->period);
    int w = (int)(b.left + b.bw * (double)n + 20);
    svg_open(out, "steps", w < 600 ? 600 : w, (int)b.base + 44, "Each step's time in collectives");
    svg_axis_left(out, &b.y, step, b.left - 4, b.left + b.bw * (double)n, "in collectives (ms)");
    for (size_t i = 0; i < n; i++)
        print_bar(c, &b, i, out);
    print_change(&b, &c->slower, "slower", out);
    print_change(&b, &c->waiting, "more waiting", out);
    double xstep;
    svg_nice_max((double)c->nsteps, &xstep);
    const struct svg_scale x = { 0, (double)n * (double)b.per, b.left, b.left + b.bw * (double)n, false };
    svg_axis_bottom(out, &x, xstep, b.base, b.per > 1 ? "step (a bar: the mean of several)" : "step");
    svg_legend(out, b.left, 16, HTML_ORANGE, "waiting for the last rank");
    svg_legend(out, b.left + 190, 16, HTML_BLUE, "the rest (transfer)");
    svg_legend(out, b.left + 340, 16, HTML_VERMILION, "the usual late rank last");
    svg_close(out);
    fputs("</div>\n", out);
}

void html_steps(const struct report_summary *s, FILE *out)
{
    if (!s->steps.ncomms)
        return;
    fputs("<section id=\"steps\">\n<h2>Steps: each step's time in its collectives</h2>\n<p class=\"note\">The "
          "pattern of collectives each communicator repeats, found from its calls or at the program's "
          "nccltap_step() marks (the text's Steps section has the figures). A step's bar is its time in "
          "collectives, the ranks' mean: waiting for the last rank to arrive (orange) and the rest (blue).</p>\n",
          out);
    for (size_t i = 0; i < s->steps.ncomms && i < STEPS_MAX_COMMS; i++)
        print_comm(&s->steps.comms[i], out);
    if (s->steps.ncomms > STEPS_MAX_COMMS)
        fprintf(out, "<p class=\"note\">The first %d of %zu communicators with steps are drawn.</p>\n", STEPS_MAX_COMMS,
                s->steps.ncomms);
    fputs("</section>\n", out);
}
