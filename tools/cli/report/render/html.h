/* The sections of the HTML report (render.h's report_print_html, html.c,
 * calls them in this order, top to bottom). Each prints one <section>
 * with the id the findings link to, or nothing when it has nothing to
 * show; each bounds what it draws whatever the run's size and says so on
 * the page. They print what the summary and the analyses hold and compute
 * nothing. */
#ifndef NCCLTAP_CLI_REPORT_HTML_H
#define NCCLTAP_CLI_REPORT_HTML_H

#include <stdio.h>

#include "model.h"

struct report_summary;
struct strip;

/* html_charts.c: "Where the time goes" (#time), the ranks' time in NCCL
 * split into waiting and transferring (#ranks), busbw against size per op
 * (#bandwidth). */
void html_time(const struct report_summary *s, FILE *out);
void html_ranks(const struct report_summary *s, FILE *out);
void html_bandwidth(const struct report *r, const struct report_summary *s, FILE *out);

/* html_links.c: the send/recv matrices (#links), the hang strip (#hang),
 * the timeline strip (#strip). */
void html_links(const struct report *r, FILE *out);
void html_hang(const struct report_summary *s, FILE *out);
void html_strip(const struct report *r, const struct strip *st, FILE *out);

/* html_tables.c: call sites (#sites) and the op tables (#ops), sortable
 * and filterable in the page. */
void html_sites(const struct report_summary *s, FILE *out);
void html_ops(const struct report_summary *s, FILE *out);

#endif
