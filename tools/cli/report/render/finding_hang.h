/* The HANG and STALL findings' renderers: a collective some rank never
 * reached, or one that stalled past the hang timeout and then completed.
 * They read their struct hang_evidence.
 * Rows of finding_kinds.c: the evidence's words (`sep` between its
 * lines), the next step, the JSON evidence. finding_hang.c */
#ifndef NCCLTAP_CLI_REPORT_FINDING_HANG_H
#define NCCLTAP_CLI_REPORT_FINDING_HANG_H

#include <jansson.h>
#include <stdio.h>

#include "findings.h"

void finding_hang_line(const struct finding *f, const char *sep, FILE *out);
void finding_hang_next(const struct finding *f, FILE *out);
void finding_hang_evidence(const struct finding *f, json_t *e);
void finding_stall_line(const struct finding *f, const char *sep, FILE *out);
void finding_stall_next(const struct finding *f, FILE *out);
void finding_stall_evidence(const struct finding *f, json_t *e);

#endif
