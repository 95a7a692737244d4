/* SLOW LINK, SLOW and BELOW EXPECTED findings: transfers below the job's
 * median busbw or the busbw expected (the cross-rank analysis's slow
 * transfers, slow links and suspects; their evidence type, struct
 * slow_evidence, is slow_transfers.h's). The analysis that adds them:
 * slow_finding.c. Called once per report, on its thread. */
#ifndef NCCLTAP_CLI_REPORT_SLOW_FINDING_H
#define NCCLTAP_CLI_REPORT_SLOW_FINDING_H

struct findings;
struct finding_sources;

/* Adds a finding per link that stands apart, per suspect whose slow pairs
 * reach two peers or more, and per slow transfer that neither names. */
void slow_findings(const struct finding_sources *in, struct findings *out);

#endif
