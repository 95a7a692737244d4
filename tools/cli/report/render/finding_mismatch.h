/* The MISMATCH finding's renderers: ranks that issued different
 * collectives at one seq; they read its struct mismatch_evidence.
 * Rows of finding_kinds.c: the evidence's words (`sep` between its
 * lines), the next step, the JSON evidence. finding_mismatch.c */
#ifndef NCCLTAP_CLI_REPORT_FINDING_MISMATCH_H
#define NCCLTAP_CLI_REPORT_FINDING_MISMATCH_H

#include <jansson.h>
#include <stdio.h>

#include "findings.h"

void finding_mismatch_line(const struct finding *f, const char *sep, FILE *out);
void finding_mismatch_next(const struct finding *f, FILE *out);
void finding_mismatch_evidence(const struct finding *f, json_t *e);

#endif
