/* The HTML report's pictures of the cross-rank analysis, each one
 * <section> with the id the findings link to, or nothing when it has
 * nothing to show: the send/recv matrices (#links), the hang strip
 * (#hang), the timeline strip around the worst finding (#strip). Each
 * bounds what it draws whatever the run's size and says so on the page;
 * none computes. Called by html.c. html_links.c */
#ifndef NCCLTAP_CLI_REPORT_HTML_LINKS_H
#define NCCLTAP_CLI_REPORT_HTML_LINKS_H

#include <stdio.h>

#include "model.h"

struct report_summary;
struct strip;

void html_links(const struct report *r, FILE *out);
void html_hang(const struct report_summary *s, FILE *out);
void html_strip(const struct report *r, const struct strip *st, FILE *out);

#endif
