/* The HTML page's evidence sections (html_evidence.h), from r->cross and
 * the summary's OS analysis: tables of the same figures the text report's
 * sections print, a row per straggler, rank, transfer, op or host. Nothing
 * is printed for a section with nothing in it. */
#include "html_evidence.h"
#include "crossrank_base.h"
#include "html_out.h"
#include "os_interference.h"
#include "summary.h"

#include <inttypes.h>

/* The worst instances' seqs, "3, 17 replay 2". */
static void seqs_td(FILE *out, const uint64_t *seq, const uint64_t *replay, size_t n)
{
    fputs("<td class=\"l\">", out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s%" PRIu64, i ? ", " : "", seq[i]);
        if (replay[i])
            fprintf(out, " replay %" PRIu64, replay[i]);
    }
    fputs("</td>", out);
}

void html_evidence_stragglers(const struct report *r, FILE *out)
{
    const struct crossrank *x = r->cross;
    if (!x || !x->nstragglers)
        return;
    static const char *const cols[] = { "comm", "rank", "host", "pid", "caused", "caused_ms", "op", "last",
                                        "told", "wait_us_mean", "wait_us_median", "gap_late_us",
                                        "gap_others_us", "worst seqs" };
    html_table_open(out, "text-stragglers", "Stragglers: ranks that start collectives last, while the others wait",
               cols, sizeof cols / sizeof cols[0]);
    for (size_t i = 0; i < x->nstragglers; i++) {
        const struct xr_straggler *s = &x->stragglers[i];
        const struct rank_file *f = &r->files[s->file];
        fputs("<tr>", out);
        html_comm_td(out, s->comm);
        fprintf(out, "<td>%d</td>", s->rank);
        html_name_td(out, f->host);
        fprintf(out, "<td>%lld</td><td>%.0f%%</td><td>%.3f</td>", f->pid, 100 * s->caused_share,
                s->caused_us_total / 1e3);
        html_name_td(out, report_name(r, s->op));
        fprintf(out, "<td>%zu</td><td>%zu</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td>", s->last,
                s->decided, s->wait_us_mean, s->wait_us_median, s->gap_late_us, s->gap_other_us);
        seqs_td(out, s->worst_seq, s->worst_replay, s->nworst);
        fputs("</tr>\n", out);
    }
    html_table_close(out);
    static const char *const wcols[] = { "comm", "rank", "wait_us_mean", "wait_us_total", "wait_us_max", "told" };
    html_table_open(out, "text-waits", "Each rank's own wait: the latest start minus its own, over its collectives",
               wcols, sizeof wcols / sizeof wcols[0]);
    for (size_t i = 0; i < x->nwaits; i++) {
        const struct xr_wait *w = &x->waits[i];
        fputs("<tr>", out);
        html_comm_td(out, w->comm);
        fprintf(out, "<td>%d</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%zu</td></tr>\n", w->rank,
                w->wait_us_mean, w->wait_us_total, w->wait_us_max, w->decided);
    }
    html_table_close(out);
}

static const char *reference_of(enum xr_reference ref)
{
    return ref == XR_REF_EXPECTED ? "expected" : "job median";
}

void html_evidence_slow(const struct report *r, FILE *out)
{
    const struct crossrank *x = r->cross;
    if (!x || (!x->nslow && !x->nslow_links))
        return;
    fputs("<div id=\"text-slow\">\n", out);
    if (x->nslow) {
        static const char *const cols[] = { "comm", "op", "bytes", "ranks", "busbw_gbs", "reference_gbs",
                                            "reference", "slow", "instances", "worst seqs" };
        html_table_open(out, "slow-transfers", "Slow transfers: busbw from the last arrival to the end, under half "
                   "the reference", cols, sizeof cols / sizeof cols[0]);
        for (size_t i = 0; i < x->nslow; i++) {
            const struct xr_slow *s = &x->slow[i];
            fputs("<tr>", out);
            html_comm_td(out, s->comm);
            html_name_td(out, report_name(r, s->op));
            fprintf(out, "<td>%" PRIu64 "</td>", s->bytes);
            if (s->p2p)
                fprintf(out, "<td class=\"l\">%d -&gt; %d</td>", s->src, s->dst);
            else
                fprintf(out, "<td class=\"l\">0-%d</td>", s->nranks - 1);
            fprintf(out, "<td>%.2f</td><td>%.2f</td><td class=\"l\">%s</td><td>%zu</td><td>%zu</td>",
                    s->busbw_gbs, s->reference == XR_REF_EXPECTED ? s->expected_gbs : s->median_busbw_gbs,
                    reference_of(s->reference), s->slow, s->instances);
            seqs_td(out, s->worst_seq, s->worst_replay, s->nworst);
            fputs("</tr>\n", out);
        }
        html_table_close(out);
    }
    if (x->nslow_links) {
        static const char *const cols[] = { "comm", "at", "bytes", "busbw_gbs", "others_gbs", "pairs",
                                            "transfer_us", "others_us", "reference" };
        html_table_open(out, "slow-links", "Slow links: ranks (or pairs) whose transfers stand apart", cols,
                   sizeof cols / sizeof cols[0]);
        for (size_t i = 0; i < x->nslow_links; i++) {
            const struct xr_slow_link *l = &x->slow_links[i];
            fputs("<tr>", out);
            html_comm_td(out, l->comm);
            if (l->rank >= 0)
                fprintf(out, "<td class=\"l\">rank %d</td>", l->rank);
            else
                fprintf(out, "<td class=\"l\">%d &lt;-&gt; %d</td>", l->src, l->dst);
            fprintf(out, "<td>%" PRIu64 "</td>", l->bytes);
            if (l->p2p)
                fprintf(out, "<td>%.2f</td><td>%.2f</td><td>%zu</td><td>-</td><td>-</td>", l->busbw_gbs,
                        l->others_gbs, l->pairs);
            else
                fprintf(out, "<td>-</td><td>-</td><td>-</td><td>%.1f</td><td>%.1f</td>", l->transfer_us,
                        l->others_us);
            fprintf(out, "<td class=\"l\">%s</td></tr>\n", reference_of(l->reference));
        }
        html_table_close(out);
    }
    fputs("</div>\n", out);
}

void html_evidence_os(const struct report *r, const struct report_summary *s, FILE *out)
{
    const struct os_interference *os = &s->os;
    if (!os->nprocs && !os->nrows)
        return;
    fputs("<div id=\"text-os\">\n", out);
    static const char *const pcols[] = { "rank", "host", "pid", "offcpu_us", "preempted_us", "irq_us",
                                         "explained_wait_us" };
    html_table_open(out, "os-processes", "OS interference: each process, over its ops", pcols,
               sizeof pcols / sizeof pcols[0]);
    for (size_t i = 0; i < os->nprocs; i++) {
        const struct os_proc *p = &os->procs[i];
        fprintf(out, "<tr><td>%d</td>", p->file->nranks ? p->file->ranks[0] : -1);
        html_name_td(out, p->file->host);
        fprintf(out, "<td>%lld</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td></tr>\n", p->file->pid,
                (double)p->offcpu_ns / 1e3, (double)p->preempted_ns / 1e3, (double)p->irq_ns / 1e3,
                (double)p->explained_ns / 1e3);
    }
    html_table_close(out);
    if (os->nrows) {
        static const char *const cols[] = { "rank", "comm", "seq", "op", "late_us", "offcpu_us", "preempted_us",
                                            "preempted_by", "irq_us", "thread" };
        html_table_open(out, "os-rows", "The ops most affected: the rank's calling and NCCL threads during each",
                   cols, sizeof cols / sizeof cols[0]);
        for (size_t i = 0; i < os->nrows; i++) {
            const struct os_row *w = &os->rows[i];
            fprintf(out, "<tr><td>%d</td>", w->op->rank);
            html_comm_td(out, w->op->comm);
            fprintf(out, "<td>%" PRIu64 "</td>", w->op->seq);
            html_name_td(out, report_name(r, w->op->op));
            if (w->straggler)
                fprintf(out, "<td>%.1f</td>", (double)w->wait_ns / 1e3);
            else
                fputs("<td>-</td>", out);
            fprintf(out, "<td>%.1f</td><td>%.1f</td>", (double)w->offcpu_ns / 1e3, (double)w->preempted_ns / 1e3);
            html_name_td(out, w->preempted_by ? w->preempted_by : "");
            fprintf(out, "<td>%.1f</td>", (double)w->irq_ns / 1e3);
            html_name_td(out, w->thread ? w->thread->comm : "");
            fputs("</tr>\n", out);
        }
        html_table_close(out);
    }
    fputs("</div>\n", out);
}

void html_evidence_clocks(const struct report *r, FILE *out)
{
    const struct crossrank *x = r->cross;
    if (!x || (!x->ninstances && !x->npairs))
        return;
    static const char *const cols[] = { "host", "offset_s", "error_us", "spread_us", "processes", "estimated" };
    html_table_open(out, "text-clocks", "Clocks, aligned on the ends of AllReduce, AllGather, ReduceScatter and "
               "AlltoAll", cols, sizeof cols / sizeof cols[0]);
    for (size_t h = 0; h < x->nhosts; h++) {
        const struct xr_host *host = &x->hosts[h];
        fputs("<tr>", out);
        html_name_td(out, host->host);
        fprintf(out, "<td>%+.9f</td><td>%.1f</td><td>%.1f</td><td>%zu</td><td class=\"l\">%s</td></tr>\n",
                (double)host->offset_ns / 1e9, host->error_ns / 1e3, host->spread_ns / 1e3, host->files,
                h == 0 ? "reference" : host->estimated ? "yes" : "no: not comparable");
    }
    html_table_close(out);
    fprintf(out, "<p class=\"note\">A skew under %.1f us is not called a straggler; the ends agree within %.1f "
            "us.</p>\n", x->threshold_ns / 1e3, x->clock_error_ns / 1e3);
}
