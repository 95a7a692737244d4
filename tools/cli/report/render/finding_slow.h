/* The SLOW LINK, SLOW and BELOW EXPECTED findings' renderers: transfers
 * below the job's median or the busbw expected.
 * They read their struct slow_evidence.
 * Rows of finding_kinds.c: the evidence's words (`sep` between its
 * lines), the next step, the JSON evidence, a slow link's element of the
 * HTML page. finding_slow.c */
#ifndef NCCLTAP_CLI_REPORT_FINDING_SLOW_H
#define NCCLTAP_CLI_REPORT_FINDING_SLOW_H

#include <jansson.h>
#include <stdio.h>

#include "findings.h"

void finding_slow_line(const struct finding *f, const char *sep, FILE *out);
void finding_slow_link_next(const struct finding *f, FILE *out);
void finding_slow_next(const struct finding *f, FILE *out);
void finding_slow_evidence(const struct finding *f, json_t *e);
const char *finding_slow_link_anchor(const struct finding *f);

#endif
