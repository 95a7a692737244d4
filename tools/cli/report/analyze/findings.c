/* The findings (findings.h): each kind's analysis run in turn, then the
 * list ordered. A collective mismatch comes first (results are wrong, and
 * it is the likely cause of a hang after it), then a hang whatever it
 * cost so far (the job stopped), then settings that differ (a likely
 * cause of both); the others by the time they cost. */
#include "findings.h"
#include "crossrank_base.h"
#include "hang_finding.h"
#include "mismatch_finding.h"
#include "os_finding.h"
#include "settings_finding.h"
#include "slow_finding.h"
#include "slower_finding.h"
#include "straggler_finding.h"

#include <stdlib.h>
#include <string.h>

/* Each kind's analysis, in the order they need each other: the OS
 * findings leave out a process already named a straggler, and a
 * settings finding of a variable counts in an earlier one at the same
 * process. */
static void (*const producers[])(const struct finding_sources *in, struct findings *out) = {
    mismatch_findings, settings_findings, hang_findings, straggler_findings, slow_findings, os_findings,
    slower_findings,
};

/* Its tier: mismatches, hangs, settings, then every other kind by cost. */
static int tier(const struct finding *x)
{
    switch (x->kind) {
    case FINDING_MISMATCH: return 0;
    case FINDING_HANG: return 1;
    case FINDING_SETTINGS: return 2;
    default: return 3;
    }
}

/* By tier, then mismatches and settings by communicator (as kept), the
 * others by cost, descending; equal ones by kind and rank. */
static int cmp_finding(const void *a, const void *b)
{
    const struct finding *x = a, *y = b;
    if (tier(x) != tier(y))
        return tier(x) < tier(y) ? -1 : 1;
    if (x->kind == FINDING_MISMATCH || x->kind == FINDING_SETTINGS)
        return (x->comm > y->comm) - (x->comm < y->comm);
    if (x->cost_us != y->cost_us)
        return x->cost_us > y->cost_us ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

void findings_analyze(const struct finding_sources *in, struct findings *out)
{
    memset(out, 0, sizeof *out);
    const struct crossrank *x = in->r->cross;
    if (x && (x->ninstances || x->npairs)) {
        out->records = true;
        out->collectives = x->ninstances;
        out->pairs = x->npairs;
    }
    for (size_t i = 0; !out->records && i < in->r->nfiles; i++)
        out->one_rank_records |= in->r->files[i].nevents > 0;
    for (size_t i = 0; i < sizeof producers / sizeof producers[0]; i++)
        producers[i](in, out);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_finding);
}

void findings_free(struct findings *f)
{
    free(f->v);
    hang_summary_free(&f->hangs);
    memset(f, 0, sizeof *f);
}
