/* The MISMATCH finding's words, next step and JSON evidence: ranks that
 * issued different collectives at one seq (a row of finding_kinds.c). */
#include "finding_mismatch.h"
#include "finding_text.h"
#include "escape.h"
#include "format.h"
#include "mismatch.h"
#include "render.h"

#include <inttypes.h>
#include <stdio.h>

/* Who issued what at the communicator's first mismatched collective:
 * the sides that differ, then what most ranks issued; 1 against 1, each. */
void finding_mismatch_line(const struct finding *f, const char *sep, FILE *out)
{
    (void)sep;
    const struct mismatch *m = f->evidence.mismatch.mismatch;
    fprintf(out, "comm %016" PRIx64 " seq %" PRIu64, f->comm, f->seq);
    if (f->replay)
        fprintf(out, " replay %" PRIu64, f->replay);
    fputs(m->majority ? ": " : ": the ranks disagree: ", out);
    for (size_t k = m->majority ? 1 : 0; k < m->nsides; k++) {
        const struct mismatch_side *s = &m->sides[k];
        if (k > (m->majority ? 1u : 0u))
            fputs("; ", out);
        print_mismatch_ranks(s, out);
        if (k == 1)
            finding_process(s->file, out);
        fputs(" issued ", out);
        print_mismatch_call(s, out);
        print_finding_site(s->site, out);
    }
    if (m->majority) {
        const struct mismatch_side *s = &m->sides[0];
        fprintf(out, ", where %zu ranks (", s->nranks);
        print_rank_list(s->ranks, s->nranks, out);
        fputs(") issued ", out);
        print_mismatch_call(s, out);
        print_finding_site(s->site, out);
    }
    char n[32];
    if (f->evidence.mismatch.instances > 1)
        fprintf(out, "; %s collectives mismatched on it, this the first",
                finding_grouped(f->evidence.mismatch.instances, n));
}

void finding_mismatch_next(const struct finding *f, FILE *out)
{
    fprintf(out, "why rank %d's call at seq %" PRIu64 " differs: a branch on the rank, a size computed per "
            "rank, or ranks running different code (the call sites above); every rank's calls: "
            "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL", f->rank, f->seq);
}

void finding_mismatch_evidence(const struct finding *f, json_t *j)
{
    const struct mismatch_evidence *e = &f->evidence.mismatch;
    json_t *sides = json_array();
    for (size_t i = 0; i < e->mismatch->nsides; i++)
        json_array_append_new(sides, mismatch_side_json(&e->mismatch->sides[i]));
    json_object_set_new(j, "sides", sides);  /* the most common first */
    json_object_set_new(j, "majority", json_boolean(e->mismatch->majority));
    json_object_set_new(j, "instances", json_integer((json_int_t)e->instances));
}
