/* The report's one analysis: every analysis the report shows runs here,
 * once, in order, and its result is one value that renderers only read
 * (they call no analysis: tests/call_circles.py checks the objects). The
 * loaded document is left as the loaders left it, but for the clock
 * offsets that the cross-rank analysis sets in its files (a start in the
 * reference clock is a file's time less its offset: crossrank_base.h).
 * analysis.c */
#ifndef NCCLTAP_CLI_REPORT_ANALYSIS_H
#define NCCLTAP_CLI_REPORT_ANALYSIS_H

#include <stdbool.h>

#include "crossrank.h"
#include "model.h"
#include "strip.h"
#include "summary.h"
#include "timeline.h"

/* What is wanted of the analysis. */
struct analysis_options {
    struct summary_options summary;  /* --comm, --op, --top */
    const char *expect_busbw;        /* --expect-busbw or NCCLTAP_EXPECT_BUSBW_GBS; NULL: none */
    bool strip;                      /* the HTML page's strip of where the time went */
    const struct tl_options *timeline;  /* --perfetto's timeline instead of the summary; NULL: none */
};

/* The result. Which parts hold something follows the options: with a
 * timeline, cross and timeline (with its OS analysis) only; otherwise
 * cross and summary (findings, hangs, OS, call sites), and strip when
 * asked. */
struct report_analysis {
    struct crossrank cross;
    struct report_summary summary;
    struct strip strip;
    struct os_interference timeline_os;
    struct timeline timeline;
    bool has_summary, has_strip, has_timeline;
};

/* Analyses r (whose r->cross then points into a until
 * report_analysis_free). */
void report_analyze(struct report *r, const struct analysis_options *o, struct report_analysis *a);
void report_analysis_free(struct report *r, struct report_analysis *a);

#endif
