/* The SETTINGS finding's renderers: NCCL settings that differ between
 * the ranks of a communicator; they read its struct settings_evidence.
 * Rows of finding_kinds.c: the evidence's words (`sep` between its
 * lines), the next step, the JSON evidence. finding_settings.c */
#ifndef NCCLTAP_CLI_REPORT_FINDING_SETTINGS_H
#define NCCLTAP_CLI_REPORT_FINDING_SETTINGS_H

#include <jansson.h>
#include <stdio.h>

#include "findings.h"

void finding_settings_line(const struct finding *f, const char *sep, FILE *out);
void finding_settings_next(const struct finding *f, FILE *out);
void finding_settings_evidence(const struct finding *f, json_t *e);

#endif
