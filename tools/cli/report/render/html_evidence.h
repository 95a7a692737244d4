/* The HTML page's evidence sections, rendered from the analysis's result
 * (not from the text report): the mismatched collectives and the settings
 * that differ (html_disagree.c), the stragglers and each rank's wait, the
 * slow transfers and links, the OS interference rows and processes, the
 * clocks' alignment (html_evidence.c). Each a <div> whose id the findings
 * link to. Called by html.c. */
#ifndef NCCLTAP_CLI_REPORT_HTML_EVIDENCE_H
#define NCCLTAP_CLI_REPORT_HTML_EVIDENCE_H

#include <stdio.h>

#include "model.h"

struct report_summary;

void html_evidence_mismatches(const struct report_summary *s, FILE *out);
void html_evidence_settings(const struct report_summary *s, FILE *out);
void html_evidence_stragglers(const struct report *r, FILE *out);
void html_evidence_slow(const struct report *r, FILE *out);
void html_evidence_os(const struct report *r, const struct report_summary *s, FILE *out);
void html_evidence_clocks(const struct report *r, FILE *out);

#endif
