/* `nccltap report DIR`: a report a person reads top to bottom. What kind of
 * run it was, then each communicator's operations merged over its ranks
 * with the spread between ranks, then what the numbers may be missing. */
#include "render.h"
#include "callsites.h"
#include "escape.h"
#include "merge.h"
#include "util.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NOTE_LATENCY \
    "  Times are each call's latency as its stream sees it, from the start event\n" \
    "  on the user's stream to the end event; on an idle stream that includes\n" \
    "  NCCL's host-side launch work. They are not kernel run times.\n"

const char *human_bytes(double b, char buf[16])
{
    static const char *const unit[] = { "", "K", "M", "G", "T", "P", "E" };
    size_t u = 0;
    while (b >= 1024.0 && u + 1 < sizeof unit / sizeof unit[0]) {
        b /= 1024.0;
        u++;
    }
    snprintf(buf, 16, b == (double)(long long)b ? "%.0f%s" : "%.1f%s", b, unit[u]);
    return buf;
}

/* ---- header ---- */

/* Distinct values of one string member of struct rank_file (at `offset`)
 * over the files, comma-separated, at most `max` of them then "...".
 * Malloc'ed; *count gets the number. */
static char *distinct(const struct report *r, size_t offset, size_t max, size_t *count)
{
    const char **seen = xcalloc(r->nfiles, sizeof *seen);
    size_t n = 0;
    for (size_t i = 0; i < r->nfiles; i++) {
        const char *v = *(const char *const *)((const char *)&r->files[i] + offset);
        if (!v[0])
            continue;
        size_t j = 0;
        while (j < n && strcmp(seen[j], v) != 0)
            j++;
        if (j == n)
            seen[n++] = v;
    }
    char buf[SHOWN_MAX];
    size_t len = 1;
    for (size_t i = 0; i < n && i < max; i++)
        len += strlen(shown(seen[i], buf)) + 2;
    char *s = xcalloc(len + 5, 1);
    for (size_t i = 0; i < n && i < max; i++) {
        if (i)
            strcat(s, ", ");
        strcat(s, shown(seen[i], buf));
    }
    if (n > max)
        strcat(s, ", ...");
    free(seen);
    *count = n;
    return s;
}

#define FIELD(name) offsetof(struct rank_file, name)

static void print_header(const struct report *r, FILE *out)
{
    size_t nranks, njobs, nhosts, nversions, ntimings;
    free(report_ranks(r, &nranks));
    char *jobs = distinct(r, FIELD(job), 4, &njobs);
    char *hosts = distinct(r, FIELD(host), 4, &nhosts);
    char *versions = distinct(r, FIELD(nccl_version), 8, &nversions);
    char *timings = distinct(r, FIELD(timing), 4, &ntimings);

    double wall = 0.0, share = 0.0;
    size_t not_final = 0, shares = 0;
    for (size_t i = 0; i < r->nfiles; i++) {
        if (r->files[i].wall_s > wall)
            wall = r->files[i].wall_s;
        double s = rank_file_nccl_share(&r->files[i]);
        if (!isnan(s)) {
            share += s;
            shares++;
        }
        not_final += !r->files[i].final;
    }
    share = shares ? share / (double)shares : NAN;

    char buf[SHOWN_MAX], buf2[SHOWN_MAX];
    fprintf(out, "nccltap report: %s\n", shown(r->dir, buf));
    fprintf(out, "  job        %s\n", njobs ? jobs : "-");
    fprintf(out, "  ranks      %zu in %zu process%s on %zu host%s (%s)\n", nranks, r->nfiles,
            r->nfiles == 1 ? "" : "es", nhosts, nhosts == 1 ? "" : "s", hosts);
    fprintf(out, "  NCCL       %s%s\n", nversions ? versions : "unknown",
            nversions > 1 ? "  (ranks run different versions)" : "");
    fprintf(out, "  wall time  %.2f s (longest process)\n", wall);
    if (isnan(share))
        fprintf(out, "  in NCCL    unknown (no call timed)\n");
    else
        fprintf(out, "  in NCCL    %.1f%% of wall time (mean over processes; the union of each process's\n"
                     "             NCCL calls' intervals, untimed calls at their row's mean time)\n", 100.0 * share);
    if (ntimings)
        fprintf(out, "  timing     %s\n", timings);
    for (size_t i = 0; i < r->nfiles; i++)
        if (r->files[i].timing_note[0])
            fprintf(out, "  timing     %s pid %lld: %s\n", shown(r->files[i].host, buf),
                    r->files[i].pid, shown(r->files[i].timing_note, buf2));
    if (r->nskipped)
        fprintf(out, "  skipped    %zu file%s that could not be read (named on stderr)\n",
                r->nskipped, r->nskipped == 1 ? "" : "s");
    if (not_final)
        fprintf(out, "  unfinished %zu file%s not final: the process was still running, "
                "or was killed\n", not_final, not_final == 1 ? "" : "s");
    if (r->from_trace)
        fputs("  source     LTTng trace: one process per traced vpid; its wall time runs from\n"
              "             its first nccltap event to its last\n", out);
    fputs("\n" NOTE_LATENCY, out);
    free(jobs);
    free(hosts);
    free(versions);
    free(timings);
}

static void print_ranks(const struct report *r, FILE *out)
{
    size_t n;
    struct rank_summary *ranks = report_ranks(r, &n);
    char host[SHOWN_MAX], version[SHOWN_MAX];
    int host_w = 4;
    for (size_t i = 0; i < r->nfiles; i++)
        if ((int)strlen(shown(r->files[i].host, host)) > host_w)
            host_w = (int)strlen(host);
    fprintf(out, "\nRanks\n  %5s  %-*s %8s  %-8s %8s  %7s\n",
            "rank", host_w, "host", "pid", "NCCL", "wall_s", "in NCCL");
    for (size_t i = 0; i < n; i++) {
        const struct rank_file *f = ranks[i].file;
        double share = rank_file_nccl_share(f);
        char pct[16] = "-";
        if (!isnan(share))
            snprintf(pct, sizeof pct, "%.1f%%", 100.0 * share);
        fprintf(out, "  %5d  %-*s %8lld  %-8s %8.2f  %7s\n", ranks[i].rank, host_w,
                shown(f->host, host), f->pid, f->nccl_version[0] ? shown(f->nccl_version, version) : "?",
                f->wall_s, pct);
    }
    free(ranks);
}

/* ---- communicators and their ops ---- */

static void print_comm_heading(const struct comm_summary *c, const char *id,
                               const struct comm_summary *all, size_t nall, FILE *out)
{
    char buf[SHOWN_MAX];
    fprintf(out, "\nCommunicator %s", shown(id, buf));
    if (!c) {
        fputs(" (not in any file's communicator list)\n", out);
        return;
    }
    if (c->name[0])
        fprintf(out, " \"%s\"", shown(c->name, buf));
    fprintf(out, ", %d rank%s", c->nranks, c->nranks == 1 ? "" : "s");
    if (c->parent[0]) {
        fprintf(out, ", from %s", shown(c->parent, buf));
        for (size_t i = 0; i < nall; i++)
            if (strcmp(all[i].id, c->parent) == 0 && all[i].name[0])
                fprintf(out, " \"%s\"", shown(all[i].name, buf));
    }
    if (c->ranks_seen != (size_t)c->nranks)
        fprintf(out, "  (%zu of %d ranks reported)", c->ranks_seen, c->nranks);
    fputc('\n', out);
}

static void print_table_head(const struct callsite_summary *cs, FILE *out)
{
    int w = cs->nsites ? 16 : 0; /* the last column is padded only when one follows */
    fprintf(out, "  %-14s %-11s %6s %10s %10s %9s %9s %9s %9s %8s %8s  %-16s %-*s%s\n",
            "op", "dtype", "size", "calls", "timed", "mean_us", "p50_us", "p99_us",
            "max_us", "algbw", "busbw", "busbw min(rank)", w, "busbw max(rank)", cs->nsites ? " call sites" : "");
}

/* " #1,#4": the Call sites section's numbers of the line's sites. */
static void print_sites_of(const struct callsite_summary *cs, const struct op_row *key, FILE *out)
{
    size_t idx[8];
    size_t n = callsite_sites_of(cs, key, idx, 8);
    for (size_t i = 0; i < n && i < 8; i++)
        fprintf(out, "%s#%zu", i ? "," : " ", idx[i] + 1);
    if (n > 8)
        fputs(",...", out);
}

/* Prints one merged line; returns true when it is a grouped op. */
static bool print_merged(const struct op_merged *m, const struct callsite_summary *cs, FILE *out)
{
    const struct op_row *k = m->first;
    bool grouped = m->grouped > 1.0;
    char op[SHOWN_MAX + 1], dtype[SHOWN_MAX], size[16];
    snprintf(op, sizeof op, "%s%s", shown(k->op, dtype), grouped ? "*" : "");
    double bytes = m->calls ? (double)m->bytes_total / (double)m->calls : k->bytes;
    fprintf(out, "  %-14s %-11s %6s %10llu %10llu", op, shown(k->dtype, dtype), human_bytes(bytes, size),
            (unsigned long long)m->calls, (unsigned long long)m->timed);
    if (!m->t_count || !m->t_sum) {
        fprintf(out, " %9s %9s %9s %9s %8s %8s  %-16s %-*s", "-", "-", "-", "-", "-", "-", "-",
                cs->nsites ? 16 : 0, "-");
        print_sites_of(cs, k, out);
        fputc('\n', out);
        return grouped;
    }
    double mean_us = (double)m->t_sum / (double)m->t_count / 1e3;
    char p50[16] = "-", p99[16] = "-";
    if (m->p50_ns >= 0)
        snprintf(p50, sizeof p50, "%.2f", m->p50_ns / 1e3);
    if (m->p99_ns >= 0)
        snprintf(p99, sizeof p99, "%.2f", m->p99_ns / 1e3);
    char lo[32], hi[32];
    snprintf(lo, sizeof lo, "%.2f (%d)", m->busbw_lo, m->busbw_lo_rank);
    snprintf(hi, sizeof hi, "%.2f (%d)", m->busbw_hi, m->busbw_hi_rank);
    fprintf(out, " %9.2f %9s %9s %9.2f %8.2f %8.2f  %-16s %-*s", mean_us, p50, p99,
            (double)m->t_max / 1e3, m->bw_bytes / (double)m->t_sum,
            m->bw_busbytes / (double)m->t_sum, lo, cs->nsites ? 16 : 0, hi);
    print_sites_of(cs, k, out);
    fputc('\n', out);
    return grouped;
}

/* Prints rows[0..n) of one communicator, merging rows with the same key. */
static void print_ops(const struct op_row *const *rows, size_t n, const struct callsite_summary *cs,
                      FILE *out)
{
    if (n == 0) {
        fputs("  no operations\n", out);
        return;
    }
    print_table_head(cs, out);
    bool any_grouped = false;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && op_row_same_key(rows[i], rows[j]))
            j++;
        struct op_merged m;
        op_merge(rows + i, j - i, &m);
        any_grouped |= print_merged(&m, cs, out);
        i = j;
    }
    if (any_grouped)
        fputs("  * issued in groups: a group's ops share one time interval, so the\n"
              "    time and the bandwidth are the group's (all its ops' bytes over its time)\n", out);
}

static void print_comms(const struct report *r, const struct callsite_summary *cs, FILE *out)
{
    size_t ncomms, nrows;
    struct comm_summary *comms = report_comms(r, &ncomms);
    const struct op_row **rows = report_rows(r, &nrows);
    /* Both are sorted by communicator id: walk them side by side, so that
     * a communicator without ops and ops of an unlisted one both show. */
    size_t i = 0, j = 0;
    while (i < ncomms || j < nrows) {
        int c = i == ncomms ? 1 : j == nrows ? -1 : strcmp(comms[i].id, rows[j]->comm);
        const char *id = c <= 0 ? comms[i].id : rows[j]->comm;
        print_comm_heading(c <= 0 ? &comms[i] : NULL, id, comms, ncomms, out);
        size_t k = j;
        if (c >= 0)
            while (k < nrows && strcmp(rows[k]->comm, id) == 0)
                k++;
        print_ops(rows + j, k - j, cs, out);
        j = k;
        if (c <= 0)
            i++;
    }
    free(rows);
    free(comms);
}

/* ---- call sites ---- */

#define TOP_SITES 20

/* "worker.c:123", "" when unknown. */
static const char *file_line(const struct site_frame *f, char *buf, size_t len)
{
    const char *slash = strrchr(f->file, '/');
    char name[SHOWN_MAX];
    if (!f->file[0])
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s:%d", shown(slash ? slash + 1 : f->file, name), f->line);
    return buf;
}

/* "step (inlined into run)" */
static const char *function_of(const struct site_frame *f, char *buf, size_t len)
{
    char name[SHOWN_MAX], outer[SHOWN_MAX];
    if (f->inlined_into[0])
        snprintf(buf, len, "%s (inlined into %s)", shown(f->function, name),
                 shown(f->inlined_into, outer));
    else
        snprintf(buf, len, "%s", shown(f->function, name));
    return buf;
}

static void print_callsites(const struct callsite_summary *cs, FILE *out)
{
    if (cs->depth == 0)
        return;
    size_t nshown = cs->nsites < TOP_SITES ? cs->nsites : TOP_SITES;
    fprintf(out, "\nCall sites (NCCLTAP_CALLSITE_DEPTH=%d): top %zu of %zu by NCCL time\n", cs->depth, nshown,
            cs->nsites);
    fprintf(out, "  %-4s %-14s %10s %12s %7s %8s  %-24s %s\n", "site", "op", "calls", "time_ms", "% NCCL", "busbw",
            "file:line", "function");
    for (size_t i = 0; i < nshown; i++) {
        const struct site_summary *s = &cs->sites[i];
        char fn[2 * SHOWN_MAX + 32], where[SHOWN_MAX + 16], busbw[32] = "-", name[SHOWN_MAX];
        const struct site_frame *top = s->first->nframes ? &s->first->frames[0] : NULL;
        if (s->timed)
            snprintf(busbw, sizeof busbw, "%.2f", s->busbw_gbs);
        fprintf(out, "  #%-3zu %-14s %10llu %12.3f %6.1f%% %8s  %-24s %s\n", i + 1, shown(s->op, name),
                (unsigned long long)s->calls, s->time_ns / 1e6, 100.0 * s->share, busbw,
                top ? file_line(top, where, sizeof where) : "-",
                top ? function_of(top, fn, sizeof fn) : "(calls after the shim's table of sites was full)");
        for (size_t k = 1; k < s->first->nframes; k++)
            fprintf(out, "%64s from %-24s %s [%s]\n", "", file_line(&s->first->frames[k], where, sizeof where),
                    function_of(&s->first->frames[k], fn, sizeof fn),
                    shown(s->first->frames[k].library, name));
    }
    fputs("  time_ms: the site's calls x their mean time (a group's time is shared among its ops);\n"
          "  % NCCL: of the same sum over every op of the run. The op tables below name their sites.\n", out);
}

/* ---- totals ---- */

static void print_totals(const struct report *r, FILE *out)
{
    struct totals t = { 0 };
    for (size_t i = 0; i < r->nfiles; i++)
        totals_add(&t, &r->files[i].totals);
    fprintf(out, "\nTotals over all ranks\n"
            "  calls %llu  dropped %llu  timed %llu  untimed %llu  captured %llu"
            "  pending %llu  failed %llu  lost %llu  simulated %llu",
            (unsigned long long)t.calls, (unsigned long long)t.dropped,
            (unsigned long long)t.timed, (unsigned long long)t.untimed,
            (unsigned long long)t.captured, (unsigned long long)t.pending,
            (unsigned long long)t.failed, (unsigned long long)t.lost,
            (unsigned long long)t.simulated);
    if (r->from_trace)
        fprintf(out, "  discarded %llu", (unsigned long long)r->discarded);
    fputc('\n', out);
    if (r->discarded)
        fprintf(out, "WARNING: LTTng discarded %llu events (its buffers were full), so the "
                "counts and times above miss them; rerun with nccltap run --lttng --blocking\n",
                (unsigned long long)r->discarded);
    if (t.dropped)
        fprintf(out, "WARNING: %llu records were lost: the shim's ring was full, so the "
                "counts and times above miss them; raise NCCLTAP_RING_SIZE\n",
                (unsigned long long)t.dropped);
    if (t.ops_lines_dropped)
        fprintf(out, "WARNING: %llu per-op log lines (NCCLTAP_OPS_JSONL) were not written: the log "
                "reached NCCLTAP_OPS_MAX_MB, so it holds the first ops only; raise NCCLTAP_OPS_MAX_MB\n",
                (unsigned long long)t.ops_lines_dropped);
    if (t.pending)
        fprintf(out, "NOTE: %llu ops had not completed when their process wrote its "
                "file (a hang, or a process that was killed)\n", (unsigned long long)t.pending);
    if (t.failed)
        fprintf(out, "NOTE: %llu calls returned an NCCL error\n", (unsigned long long)t.failed);
    if (t.simulated)
        fprintf(out, "NOTE: %llu calls were in groups closed by ncclGroupSimulateEnd: they "
                "never ran and are in no row\n", (unsigned long long)t.simulated);
    if (t.lost)
        fprintf(out, "NOTE: %llu timed ops never completed on the GPU (their CUDA context "
                "was destroyed first): they are counted but not timed\n",
                (unsigned long long)t.lost);
    if (t.captured)
        fprintf(out, "NOTE: %llu calls were captured into CUDA graphs: they run at each "
                "graph launch and are not timed\n", (unsigned long long)t.captured);
}

int report_print_text(const struct report *r, FILE *out)
{
    struct callsite_summary cs;
    report_callsites(r, &cs);
    print_header(r, out);
    print_ranks(r, out);
    print_callsites(&cs, out);
    print_comms(r, &cs, out);
    print_os_interference(r, out);
    print_clocks(r, out);
    print_stragglers(r, out);
    print_slow_transfers(r, out);
    print_hang(r, out);
    callsite_summary_free(&cs);
    print_totals(r, out);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
