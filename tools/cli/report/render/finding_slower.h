/* The SLOWER finding's renderers: a communicator's steps slower from
 * some step on, in transfer or in waiting; they read its struct
 * slower_evidence. Rows of finding_kinds.c: the evidence's words (`sep`
 * between its lines), the next step, the JSON evidence.
 * finding_slower.c */
#ifndef NCCLTAP_CLI_REPORT_FINDING_SLOWER_H
#define NCCLTAP_CLI_REPORT_FINDING_SLOWER_H

#include <jansson.h>
#include <stdio.h>

#include "findings.h"

void finding_slower_line(const struct finding *f, const char *sep, FILE *out);
void finding_slower_next(const struct finding *f, FILE *out);
void finding_slower_evidence(const struct finding *f, json_t *e);

#endif
