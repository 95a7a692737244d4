/* The HTML report's tables: call sites (#sites) and the op tables (#ops),
 * sorted and filtered in the page by its script (html.c); past a bound the
 * rest is left out and the page says so. Called by html.c. html_tables.c */
#ifndef NCCLTAP_CLI_REPORT_HTML_TABLES_H
#define NCCLTAP_CLI_REPORT_HTML_TABLES_H

#include <stdio.h>

#include "model.h"

struct report_summary;

void html_sites(const struct report_summary *s, FILE *out);
void html_ops(const struct report_summary *s, FILE *out);

#endif
