/* HANG and STALL findings: a collective some rank never reached, or one
 * that stalled past the hang timeout and then completed (hang_summary.h's
 * instances, and their evidence type, struct hang_evidence). The analysis
 * that adds them: hang_finding.c. Called once per report, on its thread. */
#ifndef NCCLTAP_CLI_REPORT_HANG_FINDING_H
#define NCCLTAP_CLI_REPORT_HANG_FINDING_H

struct findings;
struct finding_sources;

/* Fills out->hangs from the processes' hang reports, and adds a HANG or
 * STALL finding per instance. */
void hang_findings(const struct finding_sources *in, struct findings *out);

#endif
