/* STRAGGLER findings: a rank last to arrive at its communicator's
 * collectives while the others wait, judged by the wait it caused (the
 * cross-rank analysis's xr_straggler; their evidence type, struct
 * straggler_evidence, is stragglers.h's), and what the OS explains of its
 * lateness. The analysis that adds them: straggler_finding.c. Called once
 * per report, on its thread. */
#ifndef NCCLTAP_CLI_REPORT_STRAGGLER_FINDING_H
#define NCCLTAP_CLI_REPORT_STRAGGLER_FINDING_H

struct findings;
struct finding_sources;

/* A straggler is said to be late because of the OS when its threads were
 * descheduled for at least this share of the others' wait for it: 2
 * simulated ranks on 2 CPUs, with the shim's threads, preempt each other
 * for up to 29% of a healthy straggler's wait; a spinner beside the late
 * rank, 64%. */
#define FINDING_LATE_OS_MIN_SHARE 0.4

/* Adds a STRAGGLER finding per straggler whose cost is material. */
void straggler_findings(const struct finding_sources *in, struct findings *out);

#endif
