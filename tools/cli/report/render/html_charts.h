/* The HTML report's charts of the summary, each one <section> with the id
 * the findings link to, or nothing when it has nothing to show: "Where the
 * time goes" (#time), the ranks' time in NCCL split into waiting and
 * transferring (#ranks), busbw against size per op (#bandwidth), each
 * communicator's steps (#steps, html_steps.c). Each
 * bounds what it draws whatever the run's size and says so on the page;
 * none computes. Called by html.c. html_charts.c */
#ifndef NCCLTAP_CLI_REPORT_HTML_CHARTS_H
#define NCCLTAP_CLI_REPORT_HTML_CHARTS_H

#include <stdio.h>

#include "model.h"

struct report_summary;

void html_time(const struct report_summary *s, FILE *out);
void html_ranks(const struct report_summary *s, FILE *out);
void html_bandwidth(const struct report *r, const struct report_summary *s, FILE *out);
/* Each communicator's steps, a bar a step (html_steps.c). */
void html_steps(const struct report_summary *s, FILE *out);

#endif
