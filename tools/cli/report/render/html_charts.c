/* The HTML report's charts of the summary (html_charts.h): where the time goes,
 * the ranks' time in NCCL split into waiting and transferring, busbw
 * against size. SVG drawn here, text selectable, every axis titled with
 * its unit. */
#include "crossrank_base.h"
#include "escape.h"
#include "format.h"
#include "html_charts.h"
#include "html_out.h"
#include "summary.h"
#include "util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- where the time goes ---- */

/* "comm AllReduce float32 1M": a line's key, names escaped. */
static void print_line_key(const struct line_summary *l, FILE *out)
{
    const struct op_row *k = l->m.first;
    char size[16];
    html_name(out, l->comm && l->comm->name[0] ? l->comm->name : k->comm);
    fputc(' ', out);
    html_name(out, k->op);
    fputc(' ', out);
    html_name(out, k->dtype);
    fprintf(out, " %s", human_bytes(l->bytes, size));
}

/* Bars of "Where the time goes" at most (--top may ask for 100,000). */
#define TIME_MAX_BARS 50

void html_time(const struct report_summary *s, FILE *out)
{
    size_t n = s->ntop < TIME_MAX_BARS ? s->ntop : TIME_MAX_BARS;
    if (!n)
        return;
    fprintf(out, "<section id=\"time\">\n<h2>Where the time goes</h2>\n<p class=\"note\">The top %zu line%s by NCCL "
            "time over all ranks (each rank's calls x its mean time, summed; <code>--top</code> sets how many%s)."
            "</p>\n<div class=\"chart\">", n, n == 1 ? "" : "s", n < s->ntop ? ", the page draws 50 at most" : "");
    const double row = 20, top = 10, left = 330, right = 880;
    int h = (int)(top + row * (double)n + 45);
    double step, max = svg_nice_max(s->lines[s->top[0]].time_us / 1e3, &step);
    struct svg_scale x = { 0, max, left, right, false };
    svg_open(out, "bars", 900, h, "NCCL time of the top lines, in ms");
    for (size_t i = 0; i < n; i++) {
        const struct line_summary *l = &s->lines[s->top[i]];
        double y = top + row * (double)i, w = svg_at(&x, l->time_us / 1e3) - left;
        fprintf(out, "<g><title>%.3f ms, %.1f%% of NCCL time</title><text x=\"%.1f\" y=\"%.1f\" "
                "text-anchor=\"end\">", l->time_us / 1e3, l->pct_nccl, left - 6, y + 13);
        print_line_key(l, out);
        fprintf(out, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>"
                "<text x=\"%.1f\" y=\"%.1f\">%.1f%%</text></g>\n", left, y + 2, w, row - 4, HTML_BLUE,
                left + w + 4, y + 13, l->pct_nccl);
    }
    svg_axis_bottom(out, &x, step, top + row * (double)n + 2, "NCCL time over all ranks (ms)");
    svg_close(out);
    fputs("</div>\n</section>\n", out);
}

/* ---- ranks ---- */

/* Bars drawn at most; past them the page says how many are left out. */
#define RANKS_MAX_BARS 4096

struct bars {
    size_t n;                 /* bars drawn */
    double bw, left, base;    /* bar width, first bar's x, the axis's y */
    struct svg_scale y;
    bool waits;               /* waiting and transferring told apart */
};

static void print_rank_bar(const struct process_summary *p, size_t i, const struct bars *b, FILE *out)
{
    double x = b->left + b->bw * (double)i, w = b->bw > 2 ? b->bw - 1 : b->bw;
    fprintf(out, "<g class=\"rank%s\" data-rank=\"%d\"><title>rank %d (host ", p->late ? " late" : "", p->rank,
            p->rank);
    html_name(out, p->file->host);
    fprintf(out, ", pid %lld): ", p->file->pid);
    if (isnan(p->nccl_time_us)) {
        fprintf(out, "time in NCCL unknown%s</title>", p->late ? "; late: the others wait for it" : "");
        if (p->late)
            fprintf(out, "<text class=\"late-mark\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">rank %d late</text>",
                    x + w / 2, b->base - 6, p->rank);
        fputs("</g>\n", out);
        return;
    }
    fprintf(out, "in NCCL %.3f ms", p->nccl_time_us / 1e3);
    if (b->waits)
        fprintf(out, ", waiting %.3f ms, transferring %.3f ms", p->wait_us / 1e3, p->transfer_us / 1e3);
    fprintf(out, "%s</title>", p->late ? "; late: the others wait for it" : "");
    double y_total = svg_at(&b->y, p->nccl_time_us / 1e3);
    double y_transfer = b->waits ? svg_at(&b->y, p->transfer_us / 1e3) : y_total;
    fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"%s/>", x, y_transfer, w,
            b->base - y_transfer, HTML_BLUE, p->late ? " stroke=\"" HTML_VERMILION "\" stroke-width=\"2\"" : "");
    if (b->waits)
        fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>", x, y_total, w,
                y_transfer - y_total, HTML_ORANGE);
    if (p->late)
        fprintf(out, "<text class=\"late-mark\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">rank %d late</text>",
                x + w / 2, y_total - 6, p->rank);
    fputs("</g>\n", out);
}

/* Rank numbers under the bars (at most about 32), and the hosts: a band
 * under each run of bars on one host, named where there is room. */
static void print_rank_axis(const struct report_summary *s, const struct bars *b, FILE *out)
{
    size_t every = svg_label_every(b->n);
    fputs("<g class=\"axis\">", out);
    for (size_t i = 0; i < b->n; i += every)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>",
                b->left + b->bw * ((double)i + 0.5), b->base + 14, s->procs[s->by_rank[i]].rank);
    for (size_t i = 0; i < b->n;) {
        const char *host = s->procs[s->by_rank[i]].file->host;
        size_t j = i + 1;
        while (j < b->n && s->procs[s->by_rank[j]].file->host == host)
            j++;
        double x0 = b->left + b->bw * (double)i, x1 = b->left + b->bw * (double)j;
        fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke-width=\"3\"/>", x0 + 1, x1 - 1,
                b->base + 22, b->base + 22);
        if (x1 - x0 >= 60) {
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (x0 + x1) / 2, b->base + 36);
            html_name(out, host);
            fputs("</text>", out);
        }
        i = j;
    }
    fprintf(out, "<text class=\"title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">rank (bars), host (bands "
            "below)</text></g>\n", b->left + b->bw * (double)b->n / 2, b->base + 52);
}

void html_ranks(const struct report_summary *s, FILE *out)
{
    if (!s->nprocs)
        return;
    struct bars b = { .n = s->nprocs < RANKS_MAX_BARS ? s->nprocs : RANKS_MAX_BARS, .left = 70, .base = 40 + 240,
                      .waits = !isnan(s->procs[0].wait_us) };
    b.bw = fmin(40, fmax(1, 800.0 / (double)b.n));
    double max = 0;
    for (size_t i = 0; i < b.n; i++)
        if (s->procs[s->by_rank[i]].nccl_time_us > max)
            max = s->procs[s->by_rank[i]].nccl_time_us;
    double step, top = svg_nice_max(max / 1e3, &step);
    b.y = (struct svg_scale){ 0, top, b.base, 40, false };
    fputs("<section id=\"ranks\">\n<h2>Ranks: time in NCCL, waiting and transferring</h2>\n<p class=\"note\">", out);
    if (b.waits)
        fputs("Each process's time in NCCL (by its lowest rank): waiting at collectives for the last rank to arrive "
              "(orange), the rest transferring (blue). The late rank waits little: the others wait for it.", out);
    else
        fputs("Each process's time in NCCL (by its lowest rank). No per-op records: waiting and transferring "
              "cannot be told apart.", out);
    if (b.n < s->nprocs)
        fprintf(out, " The first %zu of %zu processes are drawn.", b.n, s->nprocs);
    fputs("</p>\n<div class=\"chart\">", out);
    int w = (int)(b.left + b.bw * (double)b.n + 20);
    svg_open(out, "ranks", w < 600 ? 600 : w, (int)b.base + 60, "Each rank's time in NCCL: waiting and transferring");
    svg_axis_left(out, &b.y, step, b.left - 4, b.left + b.bw * (double)b.n, "time in NCCL (ms)");
    /* The late ones last: their marks above their neighbours' bars. */
    for (int late = 0; late < 2; late++)
        for (size_t i = 0; i < b.n; i++)
            if (s->procs[s->by_rank[i]].late == late)
                print_rank_bar(&s->procs[s->by_rank[i]], i, &b, out);
    print_rank_axis(s, &b, out);
    svg_legend(out, b.left, 16, HTML_ORANGE, "waiting for the last rank");
    svg_legend(out, b.left + 190, 16, HTML_BLUE, b.waits ? "transferring" : "in NCCL");
    svg_legend(out, b.left + 310, 16, HTML_VERMILION, "late (a straggler finding)");
    svg_close(out);
    fputs("</div>\n</section>\n", out);
}

/* ---- bandwidth ---- */

/* Series drawn per chart at most (the palette twice, solid then dashed),
 * and charts (ops): with a point per size class, at most 64 a series,
 * about 2.4 MB of the page's budget (BENCHMARKS.md). */
#define BW_MAX_SERIES (2 * HTML_NCOLOURS)
#define BW_MAX_CHARTS 6

static bool plotted(const struct line_summary *l, const char *op)
{
    return l->m.first->op == op && !isnan(l->busbw_gbs) && l->bytes > 0;
}

/* The chart's scales over op's lines (and the busbw expected of it). */
static void bw_scales(const struct report *r, const struct report_summary *s, const char *op,
                      struct svg_scale *x, struct svg_scale *y, double *step)
{
    double lo = INFINITY, hi = 0, max = 0;
    for (size_t i = 0; i < s->nlines; i++) {
        const struct line_summary *l = &s->lines[i];
        if (!plotted(l, op))
            continue;
        lo = fmin(lo, l->bytes);
        hi = fmax(hi, l->bytes);
        max = fmax(max, l->busbw_gbs);
    }
    for (size_t i = 0; r->cross && i < r->cross->nexpect; i++)
        if (!r->cross->expect[i].op_name[0] || strcasecmp(r->cross->expect[i].op_name, op) == 0)
            max = fmax(max, r->cross->expect[i].gbs);
    for (size_t i = 0; i < s->nbench; i++)
        if (strcmp(s->bench[i].op, op) == 0 && s->bench[i].bytes >= lo && s->bench[i].bytes <= hi)
            max = fmax(max, s->bench[i].busbw_gbs);
    if (hi <= lo) {
        lo /= 2;
        hi *= 2;
    }
    *x = (struct svg_scale){ lo, hi, 70, 860, true };
    *y = (struct svg_scale){ 0, svg_nice_max(max, step), 230, 30, false };
}

static void print_point(const struct line_summary *l, const struct svg_scale *x, const struct svg_scale *y, FILE *out)
{
    bool slow = l->slow;
    double px = svg_at(x, l->bytes), py = svg_at(y, l->busbw_gbs);
    fputs("<g><title>", out);
    print_line_key(l, out);
    fprintf(out, ": busbw %.2f GB/s, mean %.2f us%s</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>",
            l->busbw_gbs, l->us_mean, slow ? "; a slow transfer finding" : "", px, py);
    if (slow)
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>"
                "<text class=\"slow-mark\" x=\"%.1f\" y=\"%.1f\">slow</text>", px, py, HTML_VERMILION, px + 9, py - 6);
    fputs("</g>", out);
}

/* One series: op's lines of one (communicator, dtype), by size. Returns
 * the index after it. */
static size_t print_series(const struct report_summary *s, size_t i, size_t k, const struct svg_scale *x,
                           const struct svg_scale *y, FILE *out)
{
    const struct op_row *key = s->lines[i].m.first;
    fprintf(out, "<g class=\"series\" fill=\"%s\" stroke=\"%s\"><polyline fill=\"none\"%s points=\"",
            html_colours[k % HTML_NCOLOURS], html_colours[k % HTML_NCOLOURS],
            k >= HTML_NCOLOURS ? " stroke-dasharray=\"6 3\"" : "");
    size_t j = i;
    for (; j < s->nlines && s->lines[j].m.first->comm == key->comm && s->lines[j].m.first->op == key->op &&
           s->lines[j].m.first->dtype == key->dtype; j++)
        if (plotted(&s->lines[j], key->op))
            fprintf(out, "%.1f,%.1f ", svg_at(x, s->lines[j].bytes), svg_at(y, s->lines[j].busbw_gbs));
    fputs("\"/>", out);
    for (size_t m = i; m < j; m++)
        if (plotted(&s->lines[m], key->op))
            print_point(&s->lines[m], x, y, out);
    double ly = 280 + 16 * (double)(k / 2);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" stroke=\"none\">%s ", k % 2 ? 480.0 : 90.0, ly,
            k >= HTML_NCOLOURS ? "- -" : "&#8212;");
    const struct line_summary *l = &s->lines[i];
    html_name(out, l->comm && l->comm->name[0] ? l->comm->name : key->comm);
    fputc(' ', out);
    html_name(out, key->dtype);
    fputs("</text></g>\n", out);
    return j;
}

static void print_expected(const struct report *r, const char *op, const struct svg_scale *x,
                           const struct svg_scale *y, FILE *out)
{
    for (size_t i = 0; r->cross && i < r->cross->nexpect; i++) {
        const struct xr_expect *e = &r->cross->expect[i];
        if (e->op_name[0] && strcasecmp(e->op_name, op) != 0)
            continue;
        double from = svg_at(x, fmax(x->lo, (double)e->min_bytes)), py = svg_at(y, e->gbs);
        fprintf(out, "<g class=\"expected\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-dasharray=\"2 3\" stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
                "expected %.6g GB/s</text></g>\n", from, x->p1, py, py, HTML_VERMILION, x->p1, py - 4, e->gbs);
    }
}

/* nccltap-bench's own busbw at each size of op the chart spans: a black
 * diamond, the figure nccl-tests would print for the run. */
static void print_bench(const struct report_summary *s, const char *op, const struct svg_scale *x,
                        const struct svg_scale *y, FILE *out)
{
    for (size_t i = 0; i < s->nbench; i++) {
        const struct bench_summary *b = &s->bench[i];
        if (strcmp(b->op, op) != 0 || (double)b->bytes < x->lo || (double)b->bytes > x->hi)
            continue;
        double px = svg_at(x, (double)b->bytes), py = svg_at(y, b->busbw_gbs);
        fprintf(out, "<g class=\"bench\" data-bytes=\"%llu\" data-v=\"%.6g\"><title>nccltap-bench's own busbw at "
                "%llu bytes: %.2f GB/s (median of %zu rank%s)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"7\" "
                "height=\"7\" transform=\"rotate(45 %.1f %.1f)\" fill=\"none\" stroke=\"#000000\" "
                "stroke-width=\"1.5\"/></g>", (unsigned long long)b->bytes, b->busbw_gbs,
                (unsigned long long)b->bytes, b->busbw_gbs, b->nranks, b->nranks == 1 ? "" : "s", px - 3.5,
                py - 3.5, px, py);
    }
}

static void print_bw_chart(const struct report *r, const struct report_summary *s, const char *op, FILE *out)
{
    struct svg_scale x, y;
    double step;
    bw_scales(r, s, op, &x, &y, &step);
    size_t nseries = 0, left_out = 0;
    for (size_t i = 0; i < s->nlines; i++) {
        const struct op_row *k = s->lines[i].m.first, *prev = i ? s->lines[i - 1].m.first : NULL;
        if (k->op == op && (!prev || prev->comm != k->comm || prev->op != op || prev->dtype != k->dtype))
            nseries++;
    }
    size_t drawn = nseries < BW_MAX_SERIES ? nseries : BW_MAX_SERIES;
    left_out = nseries - drawn;
    fputs("<h3>", out);
    html_name(out, op);
    fputs("</h3>\n<div class=\"chart\">", out);
    char label[64 + SHOWN_MAX], name[SHOWN_MAX];
    snprintf(label, sizeof label, "busbw against size, %s", shown(op, name));
    svg_open(out, "bandwidth", 900, (int)(290 + 16 * (double)((drawn + 1) / 2)), label);
    svg_axis_left(out, &y, step, x.p0 - 4, x.p1, "busbw (GB/s)");
    svg_axis_bottom(out, &x, 1, y.p0 + 2, "size (bytes, log scale)");
    print_expected(r, op, &x, &y, out);
    for (size_t i = 0, k = 0; i < s->nlines && k < drawn;) {
        if (s->lines[i].m.first->op != op) {
            i++;
            continue;
        }
        i = print_series(s, i, k++, &x, &y, out);
    }
    print_bench(s, op, &x, &y, out);
    svg_close(out);
    fputs("</div>\n", out);
    if (left_out)
        fprintf(out, "<p class=\"note\">%zu more communicator and datatype series not drawn (the op tables below "
                "have them).</p>\n", left_out);
}

void html_bandwidth(const struct report *r, const struct report_summary *s, FILE *out)
{
    /* The ops, in the lines' order (names are interned: one pointer each). */
    const char **ops = xcalloc(s->nlines ? s->nlines : 1, sizeof *ops);
    size_t nops = 0;
    for (size_t i = 0; i < s->nlines; i++) {
        size_t k = 0;
        while (k < nops && ops[k] != s->lines[i].m.first->op)
            k++;
        if (k == nops && plotted(&s->lines[i], s->lines[i].m.first->op))
            ops[nops++] = s->lines[i].m.first->op;
    }
    if (nops) {
        fputs("<section id=\"bandwidth\">\n<h2>Bandwidth: busbw against size</h2>\n<p class=\"note\">Per op, a line "
              "per communicator and datatype (merged over its ranks); sizes on a log scale. Dashed red: the busbw "
              "expected (<code>--expect-busbw</code>); circled: a slow transfer finding; black diamonds: "
              "nccltap-bench's own busbw, as nccl-tests prints it, where its results are beside the run.</p>\n", out);
        for (size_t i = 0; i < nops && i < BW_MAX_CHARTS; i++)
            print_bw_chart(r, s, ops[i], out);
        if (nops > BW_MAX_CHARTS)
            fprintf(out, "<p class=\"note\">%zu more ops not drawn: the page draws %d at most (the op tables "
                    "have them).</p>\n", nops - BW_MAX_CHARTS, BW_MAX_CHARTS);
        fputs("</section>\n", out);
    }
    free(ops);
}
