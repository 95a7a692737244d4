/* The HTML report's tables (html_tables.h): call sites and the op tables, sorted
 * by a click on a column and filtered by what a row contains (the page's
 * script, html.c). Each cell of a number carries it in data-v, so that
 * sorting is by value. Past a bound the rest is left out, and the page says
 * so and where to find them all. */
#include "callsites.h"
#include "format.h"
#include "html_tables.h"
#include "html_out.h"
#include "summary.h"
#include "util.h"

#include <math.h>
#include <string.h>

/* Rows a table shows at most: with names of a few hundred bytes each,
 * about a megabyte (the page's budget, BENCHMARKS.md). */
#define SITES_MAX_ROWS 500
#define OPS_MAX_ROWS 1000

/* <td data-v=v>text</td>, "-" when v is NaN. */
static void num(FILE *out, double v, const char *fmt)
{
    if (isnan(v)) {
        fputs("<td data-v=\"-1\">-</td>", out);
        return;
    }
    fprintf(out, "<td data-v=\"%.17g\">", v);
    fprintf(out, fmt, v);
    fputs("</td>", out);
}

static void name_cell(FILE *out, const char *s)
{
    fputs("<td class=\"l\">", out);
    html_name(out, s);
    fputs("</td>", out);
}

/* The table's start: a filter box, then the header's cells (left-aligned
 * where the name starts with '<'). */
static void table_head(FILE *out, const char *id, const char *const *cols, size_t n)
{
    fprintf(out, "<p><input class=\"filter\" type=\"search\" data-table=\"%s\" placeholder=\"filter rows\" "
            "aria-label=\"filter rows\"> click a column to sort</p>\n<table class=\"sortable\" id=\"%s\">\n<thead>"
            "<tr>", id, id);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "<th%s>%s</th>", cols[i][0] == '<' ? " class=\"l\"" : "", cols[i] + (cols[i][0] == '<'));
    fputs("</tr></thead>\n<tbody>\n", out);
}

static void table_end(FILE *out, size_t shown, size_t total, const char *rest)
{
    fputs("</tbody></table>\n", out);
    if (shown < total)
        fprintf(out, "<p class=\"note\">The first %zu of %zu rows are shown; %s.</p>\n", shown, total, rest);
}

static void site_row(const struct site_summary *s, size_t i, FILE *out)
{
    const struct site_frame *top = s->first->nframes ? &s->first->frames[0] : NULL;
    fprintf(out, "<tr><td data-v=\"%zu\">#%zu</td>", i + 1, i + 1);
    name_cell(out, s->op);
    num(out, (double)s->calls, "%.0f");
    num(out, s->time_ns / 1e6, "%.3f");
    num(out, 100.0 * s->share, "%.1f");
    num(out, s->timed ? s->busbw_gbs : NAN, "%.2f");
    fputs("<td class=\"l\">", out);
    if (top && top->file[0]) {
        html_name(out, path_base(top->file));
        fprintf(out, ":%d", top->line);
    } else {
        fputs("-", out);
    }
    fputs("</td>", out);
    if (top)
        name_cell(out, top->function);
    else
        fputs("<td class=\"l\">(calls after the shim's table of sites was full)</td>", out);
    fputs("</tr>\n", out);
}

void html_sites(const struct report_summary *s, FILE *out)
{
    const struct callsite_summary *cs = &s->callsites;
    if (!cs->depth)
        return;
    static const char *const cols[] = { "site", "<op", "calls", "time (ms)", "% NCCL", "busbw (GB/s)",
                                        "<file:line", "<function" };
    fprintf(out, "<section id=\"sites\">\n<h2>Call sites</h2>\n<p class=\"note\">Where the NCCL calls were made "
            "(NCCLTAP_CALLSITE_DEPTH=%d, innermost frame), by NCCL time: the site's calls x their mean time.</p>\n",
            cs->depth);
    table_head(out, "sites-table", cols, sizeof cols / sizeof cols[0]);
    size_t n = cs->nsites < SITES_MAX_ROWS ? cs->nsites : SITES_MAX_ROWS;
    for (size_t i = 0; i < n; i++)
        site_row(&cs->sites[i], i, out);
    table_end(out, n, cs->nsites, "the text report and --json have them all");
    fputs("</section>\n", out);
}

static void ops_row(const struct line_summary *l, FILE *out)
{
    const struct op_row *k = l->m.first;
    char size[16];
    fputs("<tr>", out);
    name_cell(out, k->comm);
    name_cell(out, l->comm ? l->comm->name : k->comm_name);
    name_cell(out, k->op);
    name_cell(out, k->dtype);
    fprintf(out, "<td data-v=\"%.17g\">%s</td>", l->bytes, human_bytes(l->bytes, size));
    num(out, (double)l->calls_max, "%.0f");
    num(out, (double)l->timed_max, "%.0f");
    num(out, l->us_mean, "%.2f");
    num(out, l->us_p50, "%.2f");
    num(out, l->us_p99, "%.2f");
    num(out, l->algbw_gbs, "%.2f");
    num(out, l->busbw_gbs, "%.2f");
    if (isnan(l->us_mean))
        fputs("<td data-v=\"-1\">-</td>", out);
    else
        fprintf(out, "<td data-v=\"%.17g\">%.2f (%d%s)</td>", l->m.busbw_lo, l->m.busbw_lo, l->m.busbw_lo_rank,
                l->lo_rank_waited ? "w" : "");
    num(out, l->time_us / 1e3, "%.3f");
    fputs("</tr>\n", out);
}

void html_ops(const struct report_summary *s, FILE *out)
{
    if (!s->nlines)
        return;
    static const char *const cols[] = { "<comm", "<name", "<op", "<dtype", "size", "calls/rank", "timed/rank",
                                        "mean (us)", "p50 (us)", "p99 (us)", "algbw (GB/s)", "busbw (GB/s)",
                                        "busbw min (rank)", "NCCL time (ms)" };
    fputs("<section id=\"ops\">\n<h2>Operations</h2>\n<p class=\"note\">Per communicator, op, datatype and size, "
          "merged over its ranks: calls and timed calls of the rank with the most; times and bandwidths over the "
          "timed calls other than each rank's first (NCCL connects lazily); busbw min: the lowest rank's busbw "
          "and that rank, w where it waited for a late rank.</p>\n", out);
    table_head(out, "ops-table", cols, sizeof cols / sizeof cols[0]);
    size_t n = s->nlines < OPS_MAX_ROWS ? s->nlines : OPS_MAX_ROWS;
    for (size_t i = 0; i < n; i++)
        ops_row(&s->lines[i], out);
    table_end(out, n, s->nlines, "nccltap report --csv has them all");
    fputs("</section>\n", out);
}
