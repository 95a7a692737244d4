/* The findings: what the analyses found wrong with the run, one entry per
 * culprit, worst first, for the report's first screen (text), its first
 * key (--json), `nccltap report --findings` and anything else that wants a
 * verdict. Each kind's analysis (*_finding.c) reads what the analyses
 * already returned (r->cross: the stragglers and slow transfers; the
 * hang; OS interference; mismatches; settings) and judges nothing anew: a
 * finding is one of their results, with the culprit, the time it cost
 * and its kind's own evidence (finding.h). Spelling a finding is the
 * renderers' (render/finding_kinds.c, a row per kind).
 *
 * A new kind: its value in finding.h's enum finding_kind, its evidence
 * type beside the analysis it reads and in struct finding's union, an
 * analysis file that adds findings of the kind (listed in findings.c),
 * and a row in render/finding_kinds.c with its renderers
 * (docs/development.md, "Adding a finding").
 * Called once per report, on its thread. findings.c */
#ifndef NCCLTAP_CLI_REPORT_FINDINGS_H
#define NCCLTAP_CLI_REPORT_FINDINGS_H

#include "finding.h"

/* Fills *out from in: r (r->cross as crossrank_analyze left it, r->hangs),
 * os (os_interference_analyze's, may be empty), mm (mismatch_analyze's),
 * sd (settings_analyze's) and steps (steps_analyze's); the findings point
 * into mm, sd and steps. */
void findings_analyze(const struct finding_sources *in, struct findings *out);
void findings_free(struct findings *f);

#endif
