/* MISMATCH findings: ranks of a communicator that issued different
 * collectives at one seq (mismatch.h, with their evidence type, struct
 * mismatch_evidence). The analysis that adds them: mismatch_finding.c.
 * Called once per report, on its thread. */
#ifndef NCCLTAP_CLI_REPORT_MISMATCH_FINDING_H
#define NCCLTAP_CLI_REPORT_MISMATCH_FINDING_H

struct findings;
struct finding_sources;

/* Adds a MISMATCH finding per communicator with a mismatch. */
void mismatch_findings(const struct finding_sources *in, struct findings *out);

#endif
