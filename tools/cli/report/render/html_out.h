/* Writing the HTML report: text escaped for HTML, and the SVG pieces its
 * charts share (scales, axes, a colour-blind-safe palette). Names read
 * from the inputs are anyone's who could write to the run's directory:
 * html_name() shows them as the text report does (escape.h: controls,
 * line-reordering characters as \xNN), then escapes what HTML would act
 * on, so that a name can neither add markup nor leave its attribute. The
 * bottom of the HTML renderer (html*.c call it; it calls format.h and
 * escape.h only). Pure output, callable from any thread. html_out.c */
#ifndef NCCLTAP_CLI_REPORT_HTML_OUT_H
#define NCCLTAP_CLI_REPORT_HTML_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* `s` with &, <, >, " and ' as character references: for text the
 * renderer made itself (or already passed through shown()). */
void html_text(FILE *out, const char *s);
/* A name from the inputs: shown(), then html_text(). */
void html_name(FILE *out, const char *s);

/* The evidence tables (html_evidence.h): <div id=id><h3>title</h3>
 * <table> with a header of `n` columns (text the renderer made), its
 * body's rows the caller's, then the closing tags. */
void html_table_open(FILE *out, const char *id, const char *title, const char *const *cols, size_t n);
void html_table_close(FILE *out);
/* A left-aligned cell of a name from the inputs (html_name). */
void html_name_td(FILE *out, const char *s);
/* A left-aligned cell of a communicator's id, 16 hex digits. */
void html_comm_td(FILE *out, uint64_t comm);

/* Okabe and Ito's palette, told apart with the common colour-vision
 * deficiencies: series colours, in order. */
#define HTML_NCOLOURS 7
extern const char *const html_colours[HTML_NCOLOURS];
#define HTML_BLUE "#0072B2"      /* transfer, an op */
#define HTML_ORANGE "#E69F00"    /* waiting for others */
#define HTML_VERMILION "#D55E00" /* the culprit: late, missing, slow */
#define HTML_PURPLE "#CC79A7"    /* a thread off its CPU, preempted */
#define HTML_GREY "#999999"      /* not known */

/* Viridis, dark (low) to light (high), for the send/recv matrix: a
 * sequential ramp readable in grey and with colour-vision deficiencies. */
#define HTML_NRAMP 8
extern const char *const html_ramp[HTML_NRAMP];

/* A chart's value axis: values lo..hi onto pixels p0..p1, linear or
 * log2. */
struct svg_scale {
    double lo, hi;
    double p0, p1;
    bool log2;
};
double svg_at(const struct svg_scale *s, double v);

/* A linear axis from 0 that ends on a round number at or above `max`,
 * and its tick step (1, 2 or 5 x 10^k). */
double svg_nice_max(double max, double *step);

/* Label one rank in this many (a power of two) so that at most 32 of
 * `nranks` labels stand on an axis. */
size_t svg_label_every(size_t nranks);

/* <svg> with a role, an accessible name and a viewBox of w x h. */
void svg_open(FILE *out, const char *cls, int w, int h, const char *label);
void svg_close(FILE *out);

/* The left axis of `y` (linear, ticks every `step`) at x = `x`, grid lines
 * to `x_end`, and its title (text the renderer made: units included). */
void svg_axis_left(FILE *out, const struct svg_scale *y, double step, double x, double x_end,
                   const char *title);
/* The bottom axis of `x` at y = `y`: log2 scales tick at powers of 2
 * labelled as sizes ("4K"), linear ones every `step`; and its title. */
void svg_axis_bottom(FILE *out, const struct svg_scale *x, double step, double y, const char *title);

/* A legend entry: a swatch of `colour` and its label, at (x, y). */
void svg_legend(FILE *out, double x, double y, const char *colour, const char *label);

#endif
