/* SLOWER findings: a communicator's steps that got slower from some step
 * on and stayed so (steps.h's change points, with their evidence type,
 * struct slower_evidence): in transfer (bandwidth lost, on every rank)
 * or in waiting for the last rank (a rank late since then). The analysis
 * that adds them: slower_finding.c. Called once per report, on its
 * thread. */
#ifndef NCCLTAP_CLI_REPORT_SLOWER_FINDING_H
#define NCCLTAP_CLI_REPORT_SLOWER_FINDING_H

struct findings;
struct finding_sources;

/* Adds a SLOWER finding per change point of a communicator's steps. */
void slower_findings(const struct finding_sources *in, struct findings *out);

#endif
