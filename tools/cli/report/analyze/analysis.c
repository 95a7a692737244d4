/* The report's one analysis, in the order each needs the last: the
 * clocks and collectives across ranks first (everything after reads
 * r->cross), then either the summary (findings, hangs, OS interference,
 * call sites) and the page's strip, or the timeline. */
#include "analysis.h"

#include <string.h>

void report_analyze(struct report *r, const struct analysis_options *o, struct report_analysis *a)
{
    memset(a, 0, sizeof *a);
    crossrank_analyze(r, o->expect_busbw, &a->cross);
    r->cross = &a->cross;
    if (o->timeline) {
        os_interference_analyze(r, &a->timeline_os);
        timeline_build(r, &a->timeline_os, o->timeline, &a->timeline);
        a->has_timeline = true;
        return;
    }
    report_summarize(r, &o->summary, &a->summary);
    a->has_summary = true;
    if (o->strip) {
        report_strip(r, &a->summary.findings, &a->summary.os, &a->strip);
        a->has_strip = true;
    }
}

void report_analysis_free(struct report *r, struct report_analysis *a)
{
    if (a->has_strip)
        strip_free(&a->strip);
    if (a->has_summary)
        report_summary_free(&a->summary);
    if (a->has_timeline) {
        timeline_free(&a->timeline);
        os_interference_free(&a->timeline_os);
    }
    crossrank_free(&a->cross);
    r->cross = NULL;
    memset(a, 0, sizeof *a);
}
