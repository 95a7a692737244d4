/* MISMATCH findings (mismatch_finding.h): one per communicator, its first
 * mismatched instance, the first side that differs from the most common
 * one (or, 1 against 1, the second). */
#include "mismatch_finding.h"
#include "finding.h"
#include "mismatch.h"

void mismatch_findings(const struct finding_sources *in, struct findings *out)
{
    const struct mismatches *mm = in->mm;
    if (!mm)
        return;
    out->compared = mm->compared;
    for (size_t i = 0; i < mm->ncomms; i++) {
        const struct mismatch_comm *c = &mm->comms[i];
        if (!c->n)
            continue;
        const struct mismatch *m = &mm->v[c->first];
        const struct mismatch_side *s = &m->sides[1];
        struct finding *v = finding_add(out, FINDING_MISMATCH, SECTION_MISMATCHES);
        v->comm = m->comm;
        v->seq = m->seq;
        v->replay = m->replay;
        v->rank = s->ranks[0];
        v->file = s->file;
        v->op = s->op;
        v->bytes = s->bytes;
        v->evidence.mismatch = (struct mismatch_evidence){ .mismatch = m, .instances = c->instances };
    }
}
