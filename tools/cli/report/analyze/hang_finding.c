/* HANG and STALL findings (hang_finding.h): one per hang instance. A
 * hang costs the longest wait on every rank waiting in it; a stall, its
 * time from its first start to its end on those ranks. */
#include "hang_finding.h"
#include "finding.h"
#include "hang_summary.h"

/* The culprit: the first rank that never reached it; a mismatch's, the
 * first rank of the call that differs; a stall's, the rank that came
 * last. -1 when no rank can be named. */
static int culprit(const struct hang_instance *h, bool mismatched)
{
    if (h->resolved)
        return h->late_rank;
    if (h->nmissing)
        return h->missing[0].rank;
    return mismatched ? h->calls[1].ranks[0] : -1;
}

void hang_findings(const struct finding_sources *in, struct findings *out)
{
    const struct report *r = in->r;
    report_hangs(r, &out->hangs);
    for (size_t i = 0; i < out->hangs.n; i++) {
        const struct hang_instance *h = &out->hangs.v[i];
        struct finding *x = finding_add(out, h->resolved ? FINDING_STALL : FINDING_HANG, SECTION_HANG);
        struct hang_evidence *e = &x->evidence.hang;
        x->comm = h->comm;
        x->op = h->op;
        x->seq = h->seq;
        x->bytes = h->bytes;
        e->hang = h;
        e->waited_us = h->resolved ? h->took_s * 1e6 : h->pending_s * 1e6;
        e->untimed = h->nstuck && h->nuntimed == h->nstuck;
        e->mismatched = h->ncalls >= 2 && !h->nmissing;
        e->site = h->nsites ? h->sites[0].site : NULL;
        x->cost_us = e->waited_us * (double)(h->nstuck ? h->nstuck : 1);
        x->rank = culprit(h, e->mismatched);
        if (h->resolved || h->nmissing || e->mismatched)
            x->file = finding_file_of(r, h->comm, x->rank);
    }
}
