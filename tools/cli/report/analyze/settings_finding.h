/* SETTINGS findings: NCCL settings (environment, config) that differ
 * between the ranks of a communicator (settings.h, with their evidence
 * type, struct settings_evidence). The analysis that adds them:
 * settings_finding.c. Called once per report, on its thread. */
#ifndef NCCLTAP_CLI_REPORT_SETTINGS_FINDING_H
#define NCCLTAP_CLI_REPORT_SETTINGS_FINDING_H

struct findings;
struct finding_sources;

/* Adds a SETTINGS finding per communicator whose settings differ. */
void settings_findings(const struct finding_sources *in, struct findings *out);

#endif
