/* The HTML report's pictures of the cross-rank analysis (html_links.h): each
 * communicator's send/recv busbw as a rank x rank matrix, the hang as one
 * line per rank with the seq it reached, and the timeline strip around the
 * worst finding. */
#include "crossrank_base.h"
#include "findings.h"
#include "format.h"
#include "hang_summary.h"
#include "html_links.h"
#include "html_out.h"
#include "render.h"
#include "strip.h"
#include "summary.h"
#include "util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- send/recv matrix ---- */

/* Ranks a matrix is drawn for at most (a cell under 3 px says nothing),
 * and cells over all matrices: about 190 bytes each, 2.3 MB of the page's
 * budget (BENCHMARKS.md). */
#define MATRIX_MAX_RANKS 192
#define MATRIX_MAX_CELLS 12000

struct grid {
    double cell, left, top;
    double max_gbs;
};

static void print_cells(const struct xr_links *l, const struct grid *g, FILE *out)
{
    for (size_t i = 0; i < l->ncells; i++) {
        const struct xr_link_cell *c = &l->cells[i];
        double f = c->busbw_gbs / g->max_gbs;  /* NaN where max is 0 or infinite */
        int shade = f >= 0 && f <= 1 ? (int)(f * HTML_NRAMP) : f > 1 ? HTML_NRAMP - 1 : 0;
        shade = shade >= HTML_NRAMP ? HTML_NRAMP - 1 : shade;
        fprintf(out, "<rect class=\"cell\" data-src=\"%d\" data-dst=\"%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                "height=\"%.1f\" fill=\"%s\"><title>rank %d -&gt; rank %d: %.2f GB/s (median of %zu transfers)"
                "</title></rect>\n", c->src, c->dst, g->left + g->cell * c->dst, g->top + g->cell * c->src, g->cell,
                g->cell, html_ramp[shade], c->src, c->dst, c->busbw_gbs, c->transfers);
    }
}

/* The slow links of l's communicator: a rank's row and column outlined,
 * or one pair's two cells. */
static void print_slow_links(const struct crossrank *x, const struct xr_links *l, const struct grid *g, FILE *out)
{
    double span = g->cell * l->nranks;
    for (size_t i = 0; i < x->nslow_links; i++) {
        const struct xr_slow_link *s = &x->slow_links[i];
        if (s->comm != l->comm || !s->p2p)
            continue;
        const char *attr = "fill=\"none\" stroke=\"" HTML_VERMILION "\" stroke-width=\"2\"";
        if (s->rank >= 0) {
            fprintf(out, "<g class=\"slow\" data-rank=\"%d\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                    "height=\"%.1f\" %s/><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" %s/>"
                    "<text class=\"slow-mark\" x=\"%.1f\" y=\"%.1f\">rank %d: slow link (%.2f vs %.2f GB/s)</text>"
                    "</g>\n", s->rank, g->left, g->top + g->cell * s->rank, span, g->cell, attr,
                    g->left + g->cell * s->rank, g->top, g->cell, span, attr, g->left + span + 8,
                    g->top + g->cell * (s->rank + 0.5) + 4, s->rank, s->busbw_gbs, s->others_gbs);
        } else {
            fprintf(out, "<g class=\"slow\" data-rank=\"%d\" data-peer=\"%d\"><rect x=\"%.1f\" y=\"%.1f\" "
                    "width=\"%.1f\" height=\"%.1f\" %s/><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    "%s/></g>\n", s->src, s->dst, g->left + g->cell * s->dst, g->top + g->cell * s->src, g->cell,
                    g->cell, attr, g->left + g->cell * s->src, g->top + g->cell * s->dst, g->cell, g->cell, attr);
        }
    }
}

static void print_grid_axes(const struct xr_links *l, const struct grid *g, FILE *out)
{
    int every = (int)svg_label_every((size_t)l->nranks);
    fputs("<g class=\"axis\">", out);
    for (int k = 0; k < l->nranks; k += every)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d</text><text x=\"%.1f\" y=\"%.1f\" "
                "text-anchor=\"middle\">%d</text>", g->left - 4, g->top + g->cell * (k + 0.5) + 4, k,
                g->left + g->cell * (k + 0.5), g->top - 6, k);
    double span = g->cell * l->nranks;
    fprintf(out, "<text class=\"title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">receiver (rank)</text>"
            "<text class=\"title\" transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">sender "
            "(rank)</text></g>\n", g->left + span / 2, g->top - 22, g->top + span / 2);
}

static void print_ramp_legend(const struct grid *g, double y, FILE *out)
{
    for (int k = 0; k < HTML_NRAMP; k++)
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"30\" height=\"10\" fill=\"%s\"/>", g->left + 30.0 * k, y,
                html_ramp[k]);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">0</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.2f</text>"
            "<text class=\"title\" x=\"%.1f\" y=\"%.1f\">busbw (GB/s)</text>\n", g->left, y + 24,
            g->left + 30.0 * HTML_NRAMP, y + 24, g->max_gbs, g->left + 30.0 * HTML_NRAMP + 10, y + 9);
}

/* Draws l's matrix if it fits in *budget cells (and takes them). */
static void print_matrix(const struct report *r, const struct xr_links *l, size_t *budget, FILE *out)
{
    char size[16];
    fprintf(out, "<h3>Communicator %016" PRIx64 ": ", l->comm);
    html_name(out, report_name(r, l->p2p_op));
    fprintf(out, " of %s, median busbw per pair</h3>\n", human_bytes((double)l->p2p_bytes, size));
    if (l->nranks > MATRIX_MAX_RANKS || l->ncells > *budget) {
        fprintf(out, "<p class=\"note\">%d ranks, %zu pairs: not drawn (the page draws matrices of %d ranks at "
                "most, %d cells in all). The slow links are in the findings and in the text's evidence below.</p>\n",
                l->nranks, l->ncells, MATRIX_MAX_RANKS, MATRIX_MAX_CELLS);
        return;
    }
    *budget -= l->ncells;
    struct grid g = { .left = 60, .top = 50 };
    g.cell = fmin(28, fmax(3, 480.0 / l->nranks));
    for (size_t i = 0; i < l->ncells; i++)
        g.max_gbs = fmax(g.max_gbs, l->cells[i].busbw_gbs);
    double span = g.cell * l->nranks;
    fputs("<div class=\"chart\">", out);
    svg_open(out, "matrix", (int)(g.left + span + 320), (int)(g.top + span + 50),
             "send/recv busbw per pair of ranks, sender by receiver");
    print_grid_axes(l, &g, out);
    print_cells(l, &g, out);
    print_slow_links(r->cross, l, &g, out);
    print_ramp_legend(&g, g.top + span + 14, out);
    svg_close(out);
    fputs("</div>\n", out);
}

void html_links(const struct report *r, FILE *out)
{
    const struct crossrank *x = r->cross;
    bool any = false;
    size_t budget = MATRIX_MAX_CELLS;
    for (size_t i = 0; x && i < x->nlinks; i++) {
        if (!x->links[i].ncells)
            continue;
        if (!any)
            fputs("<section id=\"links\">\n<h2>Send/recv pairs: busbw per link</h2>\n<p class=\"note\">Each "
                  "communicator's pairs at the largest size sent (bandwidth, not latency): darker is slower; no "
                  "cell, no transfer between them. Outlined in red: a slow link finding.</p>\n", out);
        any = true;
        print_matrix(r, &x->links[i], &budget, out);
    }
    if (any)
        fputs("</section>\n", out);
}

/* ---- hang ---- */

/* Rows drawn at most per hang; past them, the ranks waiting in it are one
 * row, and the page says so. Hangs (communicators) drawn at most. */
#define HANG_MAX_ROWS 64
#define HANG_MAX_DRAWN 8

struct hang_rows {
    const struct hang_instance *h;
    struct svg_scale x;
    double row;                 /* the next row's y */
};

static void print_hang_row(struct hang_rows *g, const char *cls, int rank, const char *label, int64_t reached,
                           const char *colour, FILE *out)
{
    double y = g->row;
    g->row += 18;
    fprintf(out, "<g class=\"hang-rank%s%s\" data-rank=\"%d\"><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
            cls[0] ? " " : "", cls, rank, g->x.p0 - 6, y + 12);
    html_text(out, label);
    fputs("</text>", out);
    if (reached >= 0)
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" fill=\"%s\"/>", g->x.p0, y + 2,
                svg_at(&g->x, (double)reached + 1) - g->x.p0, colour);
    fputs("</g>\n", out);
}

static void print_missing(struct hang_rows *g, const struct hang_missing *m, FILE *out)
{
    char label[160];
    if (m->issued_stuck)
        snprintf(label, sizeof label, "rank %d MISSING: issued seq %" PRIu64 ", its GPU never started it; last "
                 "%s seq %" PRId64, m->rank, g->h->seq,
                 m->last_seq + 1 == (int64_t)g->h->seq ? "reached" : "known complete", m->last_seq);
    else if (m->last_seq >= 0)
        snprintf(label, sizeof label, "rank %d MISSING: never issued seq %" PRIu64 "; last op seq %" PRId64,
                 m->rank, g->h->seq, m->last_seq);
    else
        snprintf(label, sizeof label, "rank %d MISSING: issued no op on this communicator", m->rank);
    double y = g->row;
    print_hang_row(g, "missing", m->rank, "", m->last_seq, HTML_VERMILION, out);
    fprintf(out, "<text class=\"missing-mark\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
            m->last_seq >= 0 ? svg_at(&g->x, (double)m->last_seq + 1) + 6 : g->x.p0, y + 12, label);
}

/* One row per rank, by rank, when they fit; else the missing and unknown
 * ranks one each and those waiting in it as one. */
static void print_hang_rows(struct hang_rows *g, FILE *out)
{
    const struct hang_instance *h = g->h;
    bool each = h->nstuck + h->nmissing + h->nunknown <= HANG_MAX_ROWS;
    size_t a = 0, b = 0, c = 0;
    if (!each && h->nstuck) {
        char label[64];
        snprintf(label, sizeof label, "%zu ranks (%d-%d)", h->nstuck, h->stuck[0], h->stuck[h->nstuck - 1]);
        print_hang_row(g, "stuck", h->stuck[0], label, (int64_t)h->seq, HTML_BLUE, out);
        a = h->nstuck;
    }
    for (size_t rows = 0; (a < h->nstuck || b < h->nmissing || c < h->nunknown) && rows < HANG_MAX_ROWS; rows++) {
        int ra = a < h->nstuck ? h->stuck[a] : INT32_MAX, rb = b < h->nmissing ? h->missing[b].rank : INT32_MAX;
        int rc = c < h->nunknown ? h->unknown[c] : INT32_MAX;
        char label[32];
        if (ra < rb && ra < rc) {
            snprintf(label, sizeof label, "rank %d", ra);
            print_hang_row(g, "stuck", ra, label, (int64_t)h->seq, HTML_BLUE, out);
            a++;
        } else if (rb < rc) {
            print_missing(g, &h->missing[b++], out);
        } else {
            snprintf(label, sizeof label, "rank %d: not known", rc);
            print_hang_row(g, "unknown", rc, label, -1, HTML_GREY, out);
            c++;
        }
    }
}

static void print_hang_sites(const struct hang_instance *h, FILE *out)
{
    for (size_t k = 0; k < h->nsites; k++) {
        const struct site_frame *f = h->sites[k].site->nframes ? &h->sites[k].site->frames[0] : NULL;
        if (!f)
            continue;
        fputs("<p>called from <code>", out);
        html_name(out, f->function);
        fputs("</code>", out);
        if (f->file[0]) {
            fputs(" in <code>", out);
            html_name(out, path_base(f->file));
            fprintf(out, ":%d</code>", f->line);
        }
        fputs(" by ranks ", out);
        print_rank_list(h->sites[k].ranks, h->sites[k].nranks, out);
        fputs("</p>\n", out);
    }
}

static void print_hang_instance(const struct hang_instance *h, FILE *out)
{
    char size[16];
    fprintf(out, "<h3>Communicator %016" PRIx64 " (%d ranks): ", h->comm, h->nranks);
    html_name(out, h->op);
    fprintf(out, " seq %" PRIu64 " (%s), waited up to %.1f s</h3>\n", h->seq, human_bytes((double)h->bytes, size),
            h->pending_s);
    print_hang_sites(h, out);
    size_t rows = h->nstuck + h->nmissing + h->nunknown;
    if (rows > HANG_MAX_ROWS)
        fprintf(out, "<p class=\"note\">%zu ranks: those waiting in it are drawn as one line, and %d lines at "
                "most.</p>\n", rows, HANG_MAX_ROWS);
    rows = rows > HANG_MAX_ROWS ? HANG_MAX_ROWS + 1 : rows;
    double step, max = svg_nice_max((double)h->seq + 2, &step);
    struct hang_rows g = { h, { 0, max, 170, 480, false }, 30 };
    fputs("<div class=\"chart\">", out);
    svg_open(out, "hang", 1000, (int)(30 + 18 * (double)rows + 45), "each rank's last op reached, by seq");
    double sx = svg_at(&g.x, (double)h->seq + 0.5), bottom = 30 + 18 * (double)rows;
    fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"20\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"4 3\"/>"
            "<text x=\"%.1f\" y=\"14\" text-anchor=\"middle\">stuck op: seq %" PRIu64 "</text>\n", sx, sx, bottom,
            HTML_VERMILION, sx, h->seq);
    print_hang_rows(&g, out);
    svg_axis_bottom(out, &g.x, step, bottom + 2, "ops issued on the communicator (seq reached)");
    svg_close(out);
    fputs("</div>\n", out);
}

void html_hang(const struct report_summary *s, FILE *out)
{
    const struct hang_summary *hs = &s->findings.hangs;
    if (!hs->n)
        return;
    fputs("<section id=\"hang\">\n<h2>Hang</h2>\n<p class=\"note\">Each rank's progress on the communicator: the "
          "ops it reached (blue: waiting in the stuck op), the ranks that never reached it in red.</p>\n", out);
    for (size_t i = 0; i < hs->n && i < HANG_MAX_DRAWN; i++)
        print_hang_instance(&hs->v[i], out);
    if (hs->n > HANG_MAX_DRAWN)
        fprintf(out, "<p class=\"note\">%zu more communicators hang: the page draws %d (the text's evidence below "
                "lists them all).</p>\n", hs->n - HANG_MAX_DRAWN, HANG_MAX_DRAWN);
    fputs("</section>\n", out);
}

/* ---- timeline strip ---- */

static void print_strip_op(const struct strip *st, const struct strip_op *o, const struct svg_scale *x, FILE *out)
{
    double y = 30 + 16.0 * o->row, x0 = svg_at(x, (double)o->start_ns / 1e3), x1 = svg_at(x, (double)o->end_ns / 1e3);
    fprintf(out, "<g class=\"op%s\" data-rank=\"%d\" data-seq=\"%" PRIu64 "\"><title>rank %d seq %" PRIu64 ": arrived "
            "at %.1f us, ended at %.1f us%s</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"11\" "
            "fill=\"%s\"/><line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/></g>\n",
            o->last ? " last" : "", st->ranks[o->row], o->seq, st->ranks[o->row], o->seq, (double)o->start_ns / 1e3, (double)o->end_ns / 1e3,
            o->last ? "; the last to arrive" : "", x0, y, fmax(x1 - x0, 1), o->last ? HTML_VERMILION : HTML_BLUE,
            x0, x0, y - 2, y + 13);
}

/* A time the row's process's thread was preempted: a band under its ops. */
static void print_strip_off(const struct strip *st, const struct strip_off *o, const struct svg_scale *x, FILE *out)
{
    double y = 30 + 16.0 * o->row + 11, x0 = svg_at(x, (double)o->start_ns / 1e3), x1 = svg_at(x, (double)o->end_ns / 1e3);
    fprintf(out, "<g class=\"offcpu\" data-rank=\"%d\" data-tid=\"%d\"><title>rank %d thread %d preempted from "
            "%.1f us to %.1f us</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"3\" fill=\"%s\"/></g>\n",
            st->ranks[o->row], o->tid, st->ranks[o->row], o->tid, (double)o->start_ns / 1e3,
            (double)o->end_ns / 1e3, x0, y, fmax(x1 - x0, 1), HTML_PURPLE);
}

void html_strip(const struct report *r, const struct strip *st, FILE *out)
{
    if (!st->around || !st->nops)
        return;
    char *line = finding_line(st->around);
    fprintf(out, "<section id=\"strip\">\n<h2>Timeline around the worst finding</h2>\n<p class=\"note\">Around: ");
    html_text(out, line ? line : "");
    free(line);
    fprintf(out, ".<br>Communicator %016" PRIx64 ", ", st->comm);
    html_name(out, report_name(r, st->op));
    fprintf(out, " instances around seq %" PRIu64 ": each rank's op from its arrival (its GPU start, the tick) to "
            "its end, in red where it arrived last; times aligned across processes. %zu of %zu ranks shown.%s</p>\n",
            st->seq, st->nranks, st->ranks_total,
            st->noff ? " Under a rank's ops, in purple: the times its process's threads that call NCCL, or NCCL's "
                       "own, were preempted (OS interference)." : "");
    double step, max = svg_nice_max((double)st->span_ns / 1e3, &step);
    struct svg_scale x = { 0, max, 90, 870, false };
    double bottom = 30 + 16.0 * (double)st->nranks;
    fputs("<div class=\"chart\">", out);
    svg_open(out, "strip", 900, (int)bottom + 45, "each rank's ops in time around the worst finding");
    for (size_t i = 0; i < st->nranks; i++)
        fprintf(out, "<text%s x=\"84\" y=\"%.1f\" text-anchor=\"end\">rank %d</text>\n",
                st->ranks[i] == st->around->rank ? " class=\"late-mark\"" : "", 30 + 16.0 * (double)i + 10,
                st->ranks[i]);
    for (size_t i = 0; i < st->nops; i++)
        print_strip_op(st, &st->ops[i], &x, out);
    for (size_t i = 0; i < st->noff; i++)
        print_strip_off(st, &st->off[i], &x, out);
    svg_axis_bottom(out, &x, step, bottom + 2, "time from the window's start (us)");
    svg_close(out);
    fputs("</div>\n</section>\n", out);
}
