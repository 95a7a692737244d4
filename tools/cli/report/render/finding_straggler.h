/* The STRAGGLER finding's renderers: a rank last to arrive while the
 * others wait.
 * They read its struct straggler_evidence.
 * Rows of finding_kinds.c: the evidence's words (`sep` between its
 * lines), the next step, the JSON evidence. finding_straggler.c */
#ifndef NCCLTAP_CLI_REPORT_FINDING_STRAGGLER_H
#define NCCLTAP_CLI_REPORT_FINDING_STRAGGLER_H

#include <jansson.h>
#include <stdio.h>

#include "findings.h"

void finding_straggler_line(const struct finding *f, const char *sep, FILE *out);
void finding_straggler_next(const struct finding *f, FILE *out);
void finding_straggler_evidence(const struct finding *f, json_t *e);

#endif
