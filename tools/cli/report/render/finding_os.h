/* The OS finding's renderers: a rank's threads descheduled before its
 * calls while the others waited.
 * They read its struct os_evidence.
 * Rows of finding_kinds.c: the evidence's words (`sep` between its
 * lines), the next step, the JSON evidence. finding_os.c */
#ifndef NCCLTAP_CLI_REPORT_FINDING_OS_H
#define NCCLTAP_CLI_REPORT_FINDING_OS_H

#include <jansson.h>
#include <stdio.h>

#include "findings.h"

void finding_os_line(const struct finding *f, const char *sep, FILE *out);
void finding_os_next(const struct finding *f, FILE *out);
void finding_os_evidence(const struct finding *f, json_t *e);

#endif
