/* The Hang section, as text and as --json's "hang". */
#include "render.h"
#include "escape.h"
#include "format.h"
#include "hang_summary.h"
#include "util.h"

#include <inttypes.h>
#include <string.h>

/* "    called from step in train.c:42 [libapp.so] by ranks 0-2": the
 * innermost frame, its C++ name short (--json has them all, whole). */
static void print_site(const struct hang_site *s, FILE *out)
{
    if (!s->site->nframes)
        return;
    const struct site_frame *f = &s->site->frames[0];
    char fn[SHOWN_MAX], file[SHOWN_MAX], lib[SHOWN_MAX], cut[SHOWN_MAX];
    fprintf(out, "    called from %s",
            shown(f->python ? f->function : short_function(f->function, cut, sizeof cut), fn));
    if (f->file[0]) {
        fprintf(out, " in %s:%d", shown(path_base(f->file), file), f->line);
    }
    fprintf(out, " [%s] by rank%s ", shown(f->library, lib), s->nranks == 1 ? "" : "s");
    print_rank_list(s->ranks, s->nranks, out);
    fputc('\n', out);
}

void print_hang(const struct report *r, const struct hang_summary *hs, FILE *out)
{
    if (!r->nhangs)
        return;
    fprintf(out, "\nHang: %zu process%s reported ops not complete after NCCLTAP_HANG_TIMEOUT_S\n",
            r->nhangs, r->nhangs == 1 ? "" : "es");
    for (size_t i = 0; i < hs->n; i++) {
        const struct hang_instance *h = &hs->v[i];
        char b[16], op[SHOWN_MAX];
        fprintf(out, "  comm %016" PRIx64 " (%d ranks): %s seq %" PRIu64 " (%s), waited up to %.1f s\n",
                h->comm, h->nranks, shown(h->op, op), h->seq, human_bytes((double)h->bytes, b),
                h->pending_s);
        if (h->resolved)
            fprintf(out, "    RESOLVED: it completed later on every rank, %.1f s from its first start: a long "
                    "stall, not a hang\n", h->took_s);
        for (size_t k = 0; k < h->nsites; k++)
            print_site(&h->sites[k], out);
        for (size_t k = 0; h->ncalls >= 2 && k < h->ncalls; k++) {  /* a mismatch */
            char cop[SHOWN_MAX], size[16];
            fputs(k ? "; " : "    MISMATCH: the ranks issued different calls as this seq: ", out);
            fputs(h->calls[k].nranks == 1 ? "rank " : "ranks ", out);
            print_rank_list(h->calls[k].ranks, h->calls[k].nranks, out);
            fprintf(out, " %s %s%s", shown(h->calls[k].op, cop), human_bytes((double)h->calls[k].bytes, size),
                    h->calls[k].completed ? " (completed on its side)" : "");
            if (k + 1 == h->ncalls)
                fputc('\n', out);
        }
        fprintf(out, "    stuck in it (issued it, never completed it): ");
        if (h->nstuck)
            print_rank_list(h->stuck, h->nstuck, out);
        else
            fputs("none", out);
        fputc('\n', out);
        for (size_t k = 0; k < h->nmissing; k++) {
            const struct hang_missing *m = &h->missing[k];
            if (m->issued_stuck)
                fprintf(out, "    MISSING rank %d: issued seq %" PRIu64 " but its GPU never reached it "
                        "(last op %s: seq %" PRId64 ")\n", m->rank, h->seq,
                        m->last_seq + 1 == (int64_t)h->seq ? "reached" : "known complete", m->last_seq);
            else if (m->last_seq >= 0)
                fprintf(out, "    MISSING rank %d: never issued seq %" PRIu64 "; its last op is seq %"
                        PRId64 "\n", m->rank, h->seq, m->last_seq);
            else
                fprintf(out, "    MISSING rank %d: issued no op on this communicator\n", m->rank);
        }
        if (h->nunknown) {
            fprintf(out, "    not known (no hang report, no rank file): ranks ");
            print_rank_list(h->unknown, h->nunknown, out);
            fputc('\n', out);
        }
    }
}

static json_t *int_array(const int *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

json_t *hang_json(const struct hang_summary *hs)
{
    json_t *a = json_array();
    for (size_t i = 0; i < hs->n; i++) {
        const struct hang_instance *h = &hs->v[i];
        char comm[17];
        snprintf(comm, sizeof comm, "%016" PRIx64, h->comm);
        json_t *missing = json_array(), *detail = json_array();
        for (size_t k = 0; k < h->nmissing; k++) {
            json_array_append_new(missing, json_integer(h->missing[k].rank));
            json_array_append_new(detail, json_pack("{s:i, s:I, s:b}", "rank", h->missing[k].rank,
                "last_seq", (json_int_t)h->missing[k].last_seq,
                "issued_stuck_op", h->missing[k].issued_stuck));
        }
        json_t *sites = json_array();
        for (size_t k = 0; k < h->nsites; k++) {
            json_t *frames = json_array();
            for (size_t f = 0; f < h->sites[k].site->nframes; f++)
                json_array_append_new(frames, site_frame_json(&h->sites[k].site->frames[f]));
            json_array_append_new(sites, json_pack("{s:o, s:o}", "ranks",
                int_array(h->sites[k].ranks, h->sites[k].nranks), "frames", frames));
        }
        json_array_append_new(a, json_pack("{s:s, s:I, s:s, s:I, s:i, s:f, s:b, s:o, s:o, s:o, s:o, s:o}",
            "comm", comm, "seq", (json_int_t)h->seq, "op", h->op, "bytes", (json_int_t)h->bytes,
            "nranks", h->nranks, "pending_s", h->pending_s, "resolved", h->resolved, "missing_ranks", missing,
            "stuck_ranks", int_array(h->stuck, h->nstuck), "missing", detail,
            "unknown_ranks", int_array(h->unknown, h->nunknown), "callsites", sites));
    }
    return a;
}
