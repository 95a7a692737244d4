/* The MISMATCH and SETTINGS findings' words, next steps and JSON
 * evidence: ranks that issued different collectives at one seq, NCCL
 * settings that differ between ranks (rows of finding_kinds.c). */
#include "finding_mismatch.h"
#include "finding_text.h"
#include "escape.h"
#include "format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include "mismatch.h"
#include "render.h"
#include "settings.h"

/* Who issued what at the communicator's first mismatched collective:
 * the sides that differ, then what most ranks issued; 1 against 1, each. */
void finding_mismatch_line(const struct finding *f, const char *sep, FILE *out)
{
    (void)sep;
    const struct mismatch *m = f->mismatch;
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
    if (f->count > 1)
        fprintf(out, "; %s collectives mismatched on it, this the first", finding_grouped(f->count, n));
}

/* The communicator's first setting that differs, and how many do. */
void finding_settings_line(const struct finding *f, const char *sep, FILE *out)
{
    (void)sep;
    fprintf(out, "comm %016" PRIx64 ": ", f->comm);
    print_setting_diff(f->setting, true, out);
    if (f->count > 1)
        fprintf(out, "; %zu settings differ on it", f->count);
    if (f->of)
        fprintf(out, "; the same on %zu more communicator%s", f->of, f->of == 1 ? "" : "s");
}

void finding_mismatch_next(const struct finding *f, FILE *out)
{
    fprintf(out, "why rank %d's call at seq %" PRIu64 " differs: a branch on the rank, a size computed per "
            "rank, or ranks running different code (the call sites above); every rank's calls: "
            "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL", f->rank, f->seq);
}

void finding_settings_next(const struct finding *f, FILE *out)
{
    fprintf(out, "make every rank's NCCL settings the same: compare rank %d's environment (env | grep ^NCCL_ "
            "in its process", f->rank);
    finding_on_host(f, out);
    fputs(") and the config each rank passes with the others' (the launcher, per-node profiles); "
          "NCCL_DEBUG=INFO prints the values NCCL took", out);
}

void finding_mismatch_evidence(const struct finding *f, json_t *e)
{
    json_t *sides = json_array();
    for (size_t i = 0; i < f->mismatch->nsides; i++)
        json_array_append_new(sides, mismatch_side_json(&f->mismatch->sides[i]));
    json_object_set_new(e, "sides", sides);  /* the most common first */
    json_object_set_new(e, "majority", json_boolean(f->mismatch->majority));
    json_object_set_new(e, "instances", json_integer((json_int_t)f->count));
}

void finding_settings_evidence(const struct finding *f, json_t *e)
{
    json_object_set_new(e, "setting", setting_diff_json(f->setting));
    json_object_set_new(e, "differing", json_integer((json_int_t)f->count));
    json_object_set_new(e, "more_comms", json_integer((json_int_t)f->of));
}
