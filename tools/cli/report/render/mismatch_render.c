/* The Mismatches section (analyze/mismatch.h, s->mismatches): each
 * collective the ranks issued differently, what each group of ranks
 * issued and where; its pieces also spell the MISMATCH finding
 * (finding_mismatch.c). Text and --json's "mismatches"; the HTML page
 * has its own table (html_disagree.c). */
#include "render.h"
#include "escape.h"
#include "format.h"
#include "mismatch.h"
#include "summary.h"

#include <inttypes.h>

void print_mismatch_call(const struct mismatch_side *s, FILE *out)
{
    char op[SHOWN_MAX], dtype[SHOWN_MAX], size[16];
    fprintf(out, "%s ", shown(s->op, op));
    if (s->count)
        fprintf(out, "%" PRIu64, s->count);
    else
        fprintf(out, "%s", human_bytes((double)s->bytes, size));
    fprintf(out, " %s", shown(s->dtype, dtype));
    const char *redop = op_redop_name(s->redop);
    if (redop)
        fprintf(out, " %s", redop);
    if (s->root >= 0)
        fprintf(out, " root %d", s->root);
}

void print_mismatch_ranks(const struct mismatch_side *s, FILE *out)
{
    fputs(s->nranks == 1 ? "rank " : "ranks ", out);
    print_rank_list(s->ranks, s->nranks, out);
}

/* One instance: each side, the most common first. */
static void print_instance(const struct mismatch *m, FILE *out)
{
    fprintf(out, "  comm %016" PRIx64 " seq %" PRIu64, m->comm, m->seq);
    if (m->replay)
        fprintf(out, " replay %" PRIu64, m->replay);
    fputc(':', out);
    for (size_t k = 0; k < m->nsides; k++) {
        const struct mismatch_side *s = &m->sides[k];
        fputs(k ? "\n      " : " ", out);
        print_mismatch_ranks(s, out);
        fputc(' ', out);
        print_mismatch_call(s, out);
        print_finding_site(s->site, out);
    }
    fputc('\n', out);
}

void print_mismatches(const struct report_summary *s, FILE *out)
{
    const struct mismatches *mm = &s->mismatches;
    if (!mm->n && !mm->unaligned)
        return;
    fputs("\nMismatches (collectives the ranks of a communicator issued differently: NCCL pairs calls by their "
          "order alone)\n", out);
    for (size_t i = 0; i < mm->ncomms; i++) {
        const struct mismatch_comm *c = &mm->comms[i];
        for (size_t k = 0; k < c->n; k++)
            print_instance(&mm->v[c->first + k], out);
        if (c->instances > c->n)
            fprintf(out, "  ... and %zu more on comm %016" PRIx64 "\n", c->instances - c->n, c->comm);
    }
    if (mm->unaligned)
        fprintf(out, "  %zu collective%s not compared: their ranks had recorded different numbers of sends and "
                "receives before them, so their seqs do not align\n", mm->unaligned, mm->unaligned == 1 ? "" : "s");
}

json_t *mismatch_side_json(const struct mismatch_side *s)
{
    json_t *ranks = json_array();
    for (size_t i = 0; i < s->nranks; i++)
        json_array_append_new(ranks, json_integer(s->ranks[i]));
    const char *redop = op_redop_name(s->redop);
    json_t *o = json_pack("{s:o, s:s, s:s}", "ranks", ranks, "op", s->op, "dtype", s->dtype);
    json_object_set_new(o, "count", s->count ? json_integer((json_int_t)s->count) : json_null());
    json_object_set_new(o, "bytes", json_integer((json_int_t)s->bytes));
    json_object_set_new(o, "redop", redop ? json_string(redop) : json_null());
    json_object_set_new(o, "root", s->root >= 0 ? json_integer(s->root) : json_null());
    json_object_set_new(o, "host", s->file ? json_string(s->file->host) : json_null());
    json_object_set_new(o, "pid", s->file ? json_integer(s->file->pid) : json_null());
    json_object_set_new(o, "site", s->site && s->site->nframes ? site_frame_json(&s->site->frames[0]) : json_null());
    return o;
}

json_t *mismatches_json(const struct report_summary *s)
{
    const struct mismatches *mm = &s->mismatches;
    json_t *a = json_array();
    for (size_t i = 0; i < mm->ncomms; i++) {
        const struct mismatch_comm *c = &mm->comms[i];
        char comm[17];
        snprintf(comm, sizeof comm, "%016" PRIx64, c->comm);
        json_t *v = json_array();
        for (size_t k = 0; k < c->n; k++) {
            const struct mismatch *m = &mm->v[c->first + k];
            json_t *sides = json_array();
            for (size_t j = 0; j < m->nsides; j++)
                json_array_append_new(sides, mismatch_side_json(&m->sides[j]));
            json_array_append_new(v, json_pack("{s:I, s:I, s:b, s:o}", "seq", (json_int_t)m->seq, "replay",
                                               (json_int_t)m->replay, "majority", m->majority, "sides", sides));
        }
        json_array_append_new(a, json_pack("{s:s, s:I, s:o}", "comm", comm, "instances", (json_int_t)c->instances,
                                           "first", v));
    }
    return json_pack("{s:o, s:I, s:I}", "comms", a, "compared", (json_int_t)mm->compared, "unaligned",
                     (json_int_t)mm->unaligned);
}
