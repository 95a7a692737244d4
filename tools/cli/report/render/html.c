/* `nccltap report --html FILE`: the report as one HTML page that opens in
 * any browser with no network: styles, script and charts (SVG) inline,
 * and a Content-Security-Policy that forbids the page to fetch anything.
 * Top to bottom: the header and the Findings (the text's lines, each
 * linking to its picture), then the sections of html_charts.h,
 * html_links.h and html_tables.h, then the evidence sections of
 * html_evidence.h. */
#include "render.h"
#include "finding_kinds.h"
#include "findings.h"
#include "format.h"
#include "html_charts.h"
#include "html_evidence.h"
#include "html_links.h"
#include "html_tables.h"
#include "html_out.h"
#include "merge.h"
#include "summary.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;max-width:1200px}\n"
    "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}\n"
    "dl.head{display:grid;grid-template-columns:max-content auto;gap:0 1em}dt{font-weight:600}dd{margin:0}\n"
    ".sim{color:" HTML_VERMILION ";font-weight:600}\n"
    "ol.findings li{margin:.3em 0}.finding .kind{font-weight:700}.healthy{color:#009E73}\n"
    ".note{color:#555;font-size:.9em}.chart{overflow-x:auto}\n"
    "svg{font:11px system-ui,sans-serif;display:block}svg .axis line{stroke:#666}"
    "svg .grid{stroke:#ddd}svg .title{font-weight:600}\n"
    "svg .late-mark,svg .missing-mark,svg .slow-mark{fill:" HTML_VERMILION ";font-weight:700;"
    "paint-order:stroke;stroke:#fff;stroke-width:3px}\n"
    "table{border-collapse:collapse;font-size:.9em}th,td{padding:2px 6px;text-align:right}"
    "th{background:#eee;position:sticky;top:0}tr:nth-child(even){background:#f7f7f7}"
    "td.l,th.l{text-align:left}\n"
    "table.sortable th{cursor:pointer}table.sortable th[aria-sort=ascending]::after{content:' \\25B2'}"
    "table.sortable th[aria-sort=descending]::after{content:' \\25BC'}\n"
    "@media print{input{display:none}.chart{overflow:visible}h2{break-after:avoid}svg{break-inside:avoid}}\n";

/* Sorting by a column's header, filtering rows by what they contain: no
 * data in the script, all of it in the page's cells (data-v: a number to
 * sort by). */
static const char script[] =
    "(function(){\n"
    "function key(td){var v=td.getAttribute('data-v');return v===null?td.textContent:parseFloat(v);}\n"
    "function sortBy(t,i,th){var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);\n"
    " var asc=th.getAttribute('aria-sort')!=='ascending';\n"
    " Array.prototype.forEach.call(th.parentNode.cells,function(c){c.removeAttribute('aria-sort');});\n"
    " th.setAttribute('aria-sort',asc?'ascending':'descending');\n"
    " rows.sort(function(x,y){var a=key(x.cells[i]),c=key(y.cells[i]);return (a<c?-1:a>c?1:0)*(asc?1:-1);});\n"
    " rows.forEach(function(r){b.appendChild(r);});}\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){\n"
    " Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){\n"
    "  th.addEventListener('click',function(){sortBy(t,i,th);});});});\n"
    "document.querySelectorAll('input.filter').forEach(function(f){\n"
    " var t=document.getElementById(f.getAttribute('data-table'));\n"
    " f.addEventListener('input',function(){var q=f.value.toLowerCase();\n"
    "  Array.prototype.forEach.call(t.tBodies[0].rows,function(r){\n"
    "   r.hidden=q!==''&&r.textContent.toLowerCase().indexOf(q)<0;});});});\n"
    "})();\n";

static void print_head(const struct report *r, FILE *out)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>nccltap report: ", out);
    html_name(out, r->dir);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
}

/* <dt>term</dt><dd>value</dd>, the value text the renderer made from
 * names already shown(). */
static void term(const char *t, const char *value, FILE *out)
{
    fprintf(out, "<dt>%s</dt><dd>", t);
    html_text(out, value);
    fputs("</dd>\n", out);
}

static void print_header(const struct report *r, const struct report_summary *s, FILE *out)
{
    struct header_names h;
    header_names(r, s->nranks, &h);
    fputs("<header>\n<h1>nccltap report: ", out);
    html_name(out, r->dir);
    fputs("</h1>\n<dl class=\"head\">\n", out);
    term("job", h.njobs ? h.jobs : "-", out);
    fprintf(out, "<dt>ranks</dt><dd>%zu in %zu process%s on %zu host%s (", h.nranks, r->nfiles,
            r->nfiles == 1 ? "" : "es", h.nhosts, h.nhosts == 1 ? "" : "s");
    html_text(out, h.hosts);
    fputs(")</dd>\n", out);
    term("NCCL", h.nversions ? h.versions : "unknown", out);
    if (h.nversions > 1)
        term("", "ranks run different versions", out);
    term("timing", h.ntimings ? h.timings : "-", out);
    if (s->simulated)
        fprintf(out, "<dt>simulated</dt><dd class=\"sim\">%zu of %zu process%s ran on nccltap's simulated NCCL: "
                "times and bandwidths are the simulator's model, not a GPU's</dd>\n", s->simulated, r->nfiles,
                r->nfiles == 1 ? "" : "es");
    else
        fputs("<dt>simulated</dt><dd>no</dd>\n", out);
    if (r->from_trace)
        term("source", "LTTng trace: one process per traced vpid", out);
    fprintf(out, "<dt>wall time</dt><dd>%.2f s (longest process)</dd>\n", s->wall_s);
    if (isnan(s->nccl_share))
        fputs("<dt>in NCCL</dt><dd>unknown (no call timed)</dd>\n", out);
    else
        fprintf(out, "<dt>in NCCL</dt><dd>%.1f%% of wall time (mean over processes)</dd>\n", 100.0 * s->nccl_share);
    unsigned long long open = s->totals.in_flight ? s->totals.in_flight : s->totals.pending;
    if (open)
        fprintf(out, "<dt>in flight</dt><dd>%llu call%s not complete when the files were written%s</dd>\n", open,
                open == 1 ? "" : "s", r->nhangs ? " (a hang)" : "");
    if (r->nskipped || r->records_rejected || s->not_final)
        fprintf(out, "<dt>left out</dt><dd>%zu file%s not read, %llu record%s out of range, %zu file%s not final "
                "(the text report and stderr say which)</dd>\n", r->nskipped, r->nskipped == 1 ? "" : "s",
                (unsigned long long)r->records_rejected, r->records_rejected == 1 ? "" : "s", s->not_final,
                s->not_final == 1 ? "" : "s");
    fputs("</dl>\n</header>\n", out);
    header_names_free(&h);
}

static void print_findings_list(const struct report_summary *s, FILE *out)
{
    const struct findings *fs = &s->findings;
    fputs("<section id=\"findings\">\n<h2>Findings</h2>\n", out);
    if (!fs->n) {
        /* The text's healthy line, word for word. */
        char *text = findings_healthy_text(s);
        if (text) {
            fputs("<p class=\"healthy\">", out);
            html_text(out, text);
            fputs("</p>\n", out);
            free(text);
        }
    } else {
        fputs("<p class=\"note\">Worst first; each links to its evidence below.</p>\n<ol class=\"findings\">\n", out);
    }
    for (size_t i = 0; i < fs->n; i++) {
        const struct finding *f = &fs->v[i];
        char *line = finding_line(f);
        fprintf(out, "<li class=\"finding\" id=\"finding-%zu\" data-kind=\"%s\" data-rank=\"%d\">", i + 1,
                finding_key(f), f->rank);
        html_text(out, line ? line : "(no memory)");
        fprintf(out, " <a href=\"#%s\">evidence</a>", finding_kind_of(f)->anchor(f));
        char *next = finding_next_step(f);
        if (next) {
            fputs("<br><span class=\"next\">next: ", out);
            html_text(out, next);
            fputs("</span>", out);
        }
        fputs("</li>\n", out);
        free(line);
        free(next);
    }
    if (fs->n)
        fputs("</ol>\n", out);
    fputs("</section>\n", out);
}

/* The evidence the findings link to: tables of the result's figures
 * (html_evidence.h). */
static void print_evidence(const struct report *r, const struct report_summary *s, FILE *out)
{
    fputs("<section id=\"evidence\">\n<h2>Evidence</h2>\n"
          "<p class=\"note\">The figures behind the findings, as <code>nccltap report</code>'s cross-rank "
          "sections and <code>--json</code> give them.</p>\n", out);
    html_evidence_mismatches(s, out);
    html_evidence_settings(s, out);
    html_evidence_stragglers(r, out);
    html_evidence_slow(r, out);
    html_evidence_os(r, s, out);
    html_evidence_clocks(r, out);
    fputs("</section>\n", out);
}

int report_print_html(const struct report *r, const struct report_summary *s, const struct strip *strip, FILE *out)
{
    print_head(r, out);
    print_header(r, s, out);
    print_findings_list(s, out);
    fputs("<p class=\"note\">Times are each call's latency as its stream sees it (start event to end event), "
          "not kernel run times. Sizes in bytes with binary suffixes (1K = 1024); bandwidths in GB/s "
          "(1e9 bytes/s), busbw as nccl-tests computes it.</p>\n", out);
    html_time(s, out);
    html_ranks(s, out);
    html_bandwidth(r, s, out);
    html_steps(s, out);
    html_links(r, out);
    html_hang(s, out);
    html_strip(r, strip, out);
    html_sites(s, out);
    html_ops(s, out);
    print_evidence(r, s, out);
    fprintf(out, "<script>\n%s</script>\n</body>\n</html>\n", script);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
