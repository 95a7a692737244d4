/* HTML escaping and the charts' SVG pieces (html_out.h). */
#include "html_out.h"
#include "escape.h"
#include "format.h"

#include <inttypes.h>
#include <math.h>

const char *const html_colours[HTML_NCOLOURS] = {
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000",
};

const char *const html_ramp[HTML_NRAMP] = {
    "#440154", "#46327E", "#365C8D", "#277F8E", "#1FA187", "#4AC16D", "#A0DA39", "#FDE725",
};

void html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

void html_name(FILE *out, const char *s)
{
    char buf[SHOWN_MAX];
    html_text(out, shown(s, buf));
}

/* <div id=id><h3>title</h3><table><tr><th>...</th>...</tr> */
void html_table_open(FILE *out, const char *id, const char *title, const char *const *cols, size_t n)
{
    fprintf(out, "<div id=\"%s\">\n<h3>%s</h3>\n<table class=\"evidence\">\n<thead><tr>", id, title);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "<th>%s</th>", cols[i]);
    fputs("</tr></thead>\n<tbody>\n", out);
}

void html_table_close(FILE *out)
{
    fputs("</tbody>\n</table>\n</div>\n", out);
}

void html_name_td(FILE *out, const char *s)
{
    fputs("<td class=\"l\">", out);
    html_name(out, s);
    fputs("</td>", out);
}

void html_comm_td(FILE *out, uint64_t comm)
{
    fprintf(out, "<td class=\"l\">%016" PRIx64 "</td>", comm);
}

double svg_at(const struct svg_scale *s, double v)
{
    double lo = s->log2 ? log2(s->lo) : s->lo, hi = s->log2 ? log2(s->hi) : s->hi;
    double x = s->log2 ? log2(v) : v;
    double f = hi > lo ? (x - lo) / (hi - lo) : 0.5;
    return s->p0 + f * (s->p1 - s->p0);
}

size_t svg_label_every(size_t nranks)
{
    size_t every = 1;
    while (nranks / every > 32)
        every *= 2;
    return every;
}

double svg_nice_max(double max, double *step)
{
    if (!(max > 0.0) || !isfinite(max))
        max = 1.0;
    double raw = max / 5.0, mag = pow(10.0, floor(log10(raw))), f = raw / mag;
    *step = (f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0) * mag;
    return ceil(max / *step - 1e-9) * *step;
}

void svg_open(FILE *out, const char *cls, int w, int h, const char *label)
{
    fprintf(out, "<svg class=\"%s\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
            "aria-label=\"", cls, w, h, w, h);
    html_text(out, label);
    fputs("\" xmlns=\"http://www.w3.org/2000/svg\">\n", out);
}

void svg_close(FILE *out)
{
    fputs("</svg>\n", out);
}

/* "1.5", "20", "0.25": a tick's value, no trailing zeros. */
static void print_tick(FILE *out, double v)
{
    fprintf(out, "%.6g", fabs(v) < 1e-12 ? 0.0 : v);
}

void svg_axis_left(FILE *out, const struct svg_scale *y, double step, double x, double x_end,
                   const char *title)
{
    fputs("<g class=\"axis\">", out);
    for (double v = y->lo; v <= y->hi + step * 1e-6; v += step) {
        double py = svg_at(y, v);
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x, x_end, py, py, x - 4, py + 4);
        print_tick(out, v);
        fputs("</text>", out);
    }
    double mid = (y->p0 + y->p1) / 2;
    fprintf(out, "<text class=\"title\" transform=\"translate(12 %.1f) rotate(-90)\" text-anchor=\"middle\">",
            mid);
    html_text(out, title);
    fputs("</text></g>\n", out);
}

void svg_axis_bottom(FILE *out, const struct svg_scale *x, double step, double y, const char *title)
{
    fprintf(out, "<g class=\"axis\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x->p0, x->p1, y, y);
    if (x->log2) {
        /* Every power of 2, or every 2nd, 4th... so that labels do not meet. */
        double lo = ceil(log2(x->lo)), hi = floor(log2(x->hi));
        double every = 1;
        while ((hi - lo) / every > 12)
            every *= 2;
        for (double e = lo; e <= hi; e += every) {
            char size[16];
            double px = svg_at(x, exp2(e));
            fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
                    "text-anchor=\"middle\">%s</text>", px, px, y, y + 4, px, y + 16, human_bytes(exp2(e), size));
        }
    } else {
        for (double v = x->lo; v <= x->hi + step * 1e-6; v += step) {
            double px = svg_at(x, v);
            fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
                    "text-anchor=\"middle\">", px, px, y, y + 4, px, y + 16);
            print_tick(out, v);
            fputs("</text>", out);
        }
    }
    fprintf(out, "<text class=\"title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (x->p0 + x->p1) / 2,
            y + 32);
    html_text(out, title);
    fputs("</text></g>\n", out);
}

void svg_legend(FILE *out, double x, double y, const char *colour, const char *label)
{
    fprintf(out, "<g class=\"legend\"><rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
            "<text x=\"%.1f\" y=\"%.1f\">", x, y - 10, colour, x + 16, y);
    html_text(out, label);
    fputs("</text></g>\n", out);
}
