/* OS findings: a rank whose threads, descheduled before its calls, made
 * the others wait a material share of their NCCL time (os_interference.h's
 * processes, and their evidence type, struct os_evidence). The analysis
 * that adds them: os_finding.c. Called once per report, on its thread,
 * after the stragglers' (a straggler already says what the OS explains of
 * it). */
#ifndef NCCLTAP_CLI_REPORT_OS_FINDING_H
#define NCCLTAP_CLI_REPORT_OS_FINDING_H

struct findings;
struct finding_sources;

/* An OS finding needs the waiting that a rank's descheduling before its
 * calls explains to be at least this share of the other ranks' NCCL time:
 * off-CPU time inside its own calls, while its GPU works on, costs nobody
 * (4 ranks on 2 CPUs lose 5% of their NCCL time so and run as fast). */
#define FINDING_OS_MIN_SHARE 0.1

/* Adds an OS finding per process whose descheduling explains enough. */
void os_findings(const struct finding_sources *in, struct findings *out);

#endif
