/* The HTML page's evidence of what the ranks disagree on (html_evidence.h),
 * from the analysis's result, not the text: the collectives they issued
 * differently (s->mismatches), a row per side of each instance, and the
 * NCCL settings that differ (s->settings), a row per value. Every name
 * from the inputs goes through html_name(). Nothing is printed for a
 * section with nothing in it. */
#include "html_evidence.h"
#include "escape.h"
#include "format.h"
#include "html_out.h"
#include "render.h"
#include "mismatch.h"
#include "settings.h"
#include "summary.h"
#include "util.h"

#include <inttypes.h>

/* "0, 2-3": digits, commas and hyphens only, nothing to escape. */
static void ranks_td(FILE *out, const int *ranks, size_t n)
{
    fputs("<td class=\"l\">", out);
    print_rank_list(ranks, n, out);
    fputs("</td>", out);
}

/* The host and pid of a process, "-" where not known. */
static void process_tds(FILE *out, const struct rank_file *file)
{
    if (!file) {
        fputs("<td class=\"l\">-</td><td>-</td>", out);
        return;
    }
    html_name_td(out, file->host);
    fprintf(out, "<td>%lld</td>", file->pid);
}

/* Where ranks[0] called it: file:line, or the function without a file. */
static void site_td(FILE *out, const struct callsite *site)
{
    fputs("<td class=\"l\">", out);
    if (site && site->nframes) {
        const struct site_frame *fr = &site->frames[0];
        char cut[SHOWN_MAX];
        if (fr->file[0]) {
            html_name(out, path_base(fr->file));
            fprintf(out, ":%d", fr->line);
        } else {
            html_name(out, fr->python ? fr->function : short_function(fr->function, cut, sizeof cut));
        }
    }
    fputs("</td>", out);
}

/* Which side of its instance: the most common, or one that differs; 1
 * against 1, neither. */
static const char *side_of(const struct mismatch *m, size_t k)
{
    return !m->majority ? "no majority" : k == 0 ? "most ranks" : "differs";
}

static void mismatch_rows(FILE *out, const struct mismatch *m)
{
    for (size_t k = 0; k < m->nsides; k++) {
        const struct mismatch_side *s = &m->sides[k];
        const char *redop = op_redop_name(s->redop);
        fputs("<tr>", out);
        html_comm_td(out, m->comm);
        fprintf(out, "<td>%" PRIu64 "</td><td>%" PRIu64 "</td><td class=\"l\">%s</td>", m->seq, m->replay,
                side_of(m, k));
        ranks_td(out, s->ranks, s->nranks);
        html_name_td(out, s->op);
        if (s->count)
            fprintf(out, "<td>%" PRIu64 "</td>", s->count);
        else
            fputs("<td>-</td>", out);
        fprintf(out, "<td>%" PRIu64 "</td>", s->bytes);
        html_name_td(out, s->dtype);
        fprintf(out, "<td class=\"l\">%s</td>", redop ? redop : "-");
        if (s->root >= 0)
            fprintf(out, "<td>%d</td>", s->root);
        else
            fputs("<td>-</td>", out);
        process_tds(out, s->file);
        site_td(out, s->site);
        fputs("</tr>\n", out);
    }
}

void html_evidence_mismatches(const struct report_summary *s, FILE *out)
{
    const struct mismatches *mm = &s->mismatches;
    if (!mm->n && !mm->unaligned)
        return;
    fputs("<div id=\"text-mismatches\">\n", out);
    if (mm->n) {
        static const char *const cols[] = { "comm", "seq", "replay", "side", "ranks", "op", "count", "bytes",
                                            "dtype", "redop", "root", "host", "pid", "call site" };
        html_table_open(out, "mismatch-instances", "Mismatches: collectives the ranks of a communicator issued "
                        "differently (NCCL pairs calls by their order alone)", cols, sizeof cols / sizeof cols[0]);
        for (size_t i = 0; i < mm->ncomms; i++)
            for (size_t k = 0; k < mm->comms[i].n; k++)
                mismatch_rows(out, &mm->v[mm->comms[i].first + k]);
        html_table_close(out);
    }
    for (size_t i = 0; i < mm->ncomms; i++) {
        const struct mismatch_comm *c = &mm->comms[i];
        if (c->instances > c->n)
            fprintf(out, "<p class=\"note\">... and %zu more on comm %016" PRIx64 "</p>\n", c->instances - c->n,
                    c->comm);
    }
    if (mm->unaligned)
        fprintf(out, "<p class=\"note\">%zu collective%s not compared: their ranks had recorded different numbers "
                "of sends and receives before them, so their seqs do not align.</p>\n", mm->unaligned,
                mm->unaligned == 1 ? "" : "s");
    fputs("</div>\n", out);
}

/* A setting's value as the text says it: unset, a variable's hash (the
 * shim never writes values), a config field's text or number. */
static void value_td(FILE *out, const struct setting_diff *d, const struct setting_value *v)
{
    fputs("<td class=\"l\">", out);
    if (!v->set) {
        fputs("unset", out);
    } else if (d->env) {
        fprintf(out, "set (value #%08" PRIx64 ")", v->hash >> 32);
    } else if (v->text) {
        fputs("&quot;", out);
        html_name(out, v->text);
        fputs("&quot;", out);
    } else {
        fprintf(out, "%d", v->number);
    }
    fputs("</td>", out);
}

void html_evidence_settings(const struct report_summary *s, FILE *out)
{
    const struct settings_drift *sd = &s->settings;
    if (!sd->n)
        return;
    static const char *const cols[] = { "comm", "setting", "name", "value", "ranks", "host", "pid",
                                        "every rank of host" };
    html_table_open(out, "text-settings", "Settings: NCCL settings that differ between the ranks of a "
                    "communicator (a variable's value is shown by its hash)", cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < sd->n; i++) {
        const struct setting_diff *d = &sd->v[i];
        for (size_t k = 0; k < d->nvalues; k++) {
            const struct setting_value *v = &d->values[k];
            fputs("<tr>", out);
            html_comm_td(out, d->comm);
            fprintf(out, "<td class=\"l\">%s</td>", setting_kind(d));
            html_name_td(out, d->name);
            value_td(out, d, v);
            ranks_td(out, v->ranks, v->nranks);
            process_tds(out, v->file);
            html_name_td(out, v->host_apart ? v->host_apart : "");
            fputs("</tr>\n", out);
        }
    }
    html_table_close(out);
}
