/* SLOWER findings (slower_finding.h). A change point costs the rise per
 * step over every step since: what the job lost to it so far, per rank. */
#include "slower_finding.h"
#include "finding.h"
#include "steps.h"

static struct finding *add(struct findings *out, const struct comm_steps *c, const struct step_change *ch,
                           enum slower_basis basis)
{
    struct finding *v = finding_add(out, FINDING_SLOWER, SECTION_STEPS);
    v->comm = c->comm;
    v->seq = c->steps[ch->from].first_seq;
    v->cost_us = (ch->after_us - ch->before_us) * (double)(c->nsteps - ch->from);
    v->evidence.slower = (struct slower_evidence){ basis, c };
    return v;
}

void slower_findings(const struct finding_sources *in, struct findings *out)
{
    const struct steps *st = in->steps;
    for (size_t i = 0; st && i < st->ncomms; i++) {
        const struct comm_steps *c = &st->comms[i];
        if (c->slower.found) {
            struct finding *v = add(out, c, &c->slower, SLOWER_TRANSFER);
            v->op = report_name(in->r, c->positions[c->slower.pos].op);
            v->bytes = c->positions[c->slower.pos].bytes;
        }
        if (c->waiting.found) {
            struct finding *v = add(out, c, &c->waiting, SLOWER_WAITING);
            if (c->late.rank >= 0) {
                v->rank = c->late.rank;
                v->file = finding_file_of(in->r, c->comm, c->late.rank);
                v->op = report_name(in->r, c->positions[c->late.pos].op);
                v->bytes = c->positions[c->late.pos].bytes;
            }
        }
    }
}
