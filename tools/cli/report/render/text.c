/* `nccltap report DIR`: a report a person reads top to bottom. What kind of
 * run it was, then each communicator's operations merged over its ranks
 * with the spread between ranks, then what the numbers may be missing. */
#include "render.h"
#include "callsites.h"
#include "escape.h"
#include "format.h"
#include "merge.h"
#include "summary.h"
#include "util.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NOTE_LATENCY \
    "  Times are each call's latency as its stream sees it, from the start event\n" \
    "  on the user's stream to the end event; on an idle stream that includes\n" \
    "  NCCL's host-side launch work. They are not kernel run times.\n"

/* ---- header ---- */

/* Columns of the op tables: `wide` adds those the default leaves out to fit
 * 120 columns. */
struct layout {
    bool wide;
};

static void print_header(const struct report *r, const struct report_summary *s, FILE *out)
{
    struct header_names h;
    header_names(r, s->nranks, &h);

    char buf[SHOWN_MAX], buf2[SHOWN_MAX];
    fprintf(out, "nccltap report: %s\n", shown(r->dir, buf));
    fprintf(out, "  job        %s\n", h.njobs ? h.jobs : "-");
    fprintf(out, "  ranks      %zu in %zu process%s on %zu host%s (%s)\n", h.nranks, r->nfiles,
            r->nfiles == 1 ? "" : "es", h.nhosts, h.nhosts == 1 ? "" : "s", h.hosts);
    fprintf(out, "  NCCL       %s%s\n", h.nversions ? h.versions : "unknown",
            h.nversions > 1 ? "  (ranks run different versions)" : "");
    if (s->simulated)
        fprintf(out, "  SIMULATED  %zu of %zu process%s ran on nccltap's simulated NCCL: times and bandwidths\n"
                "             are the simulator's model, not a GPU's\n",
                s->simulated, r->nfiles, r->nfiles == 1 ? "" : "es");
    if (h.ntimings)
        fprintf(out, "  timing     %s\n", h.timings);
    if (s->totals.stamped)
        fprintf(out, "  stamped    %llu call%s: start and end from marks, to the reducer's polls (NCCLTAP_POLL_US);\n"
                     "             %llu timed precisely with event pairs\n",
                (unsigned long long)s->totals.stamped, s->totals.stamped == 1 ? "" : "s",
                (unsigned long long)s->totals.timed);
    for (size_t i = 0; i < r->nfiles; i++)
        if (r->files[i].timing_note[0])
            fprintf(out, "  timing     %s pid %lld: %s\n", shown(r->files[i].host, buf),
                    r->files[i].pid, shown(r->files[i].timing_note, buf2));
    fprintf(out, "  wall time  %.2f s (longest process)\n", s->wall_s);
    if (isnan(s->nccl_share))
        fprintf(out, "  in NCCL    unknown (no call timed)\n");
    else
        fprintf(out, "  in NCCL    %.1f%% of wall time (mean over processes; the union of each process's\n"
                     "             NCCL calls' intervals, untimed calls at their row's mean time)\n",
                100.0 * s->nccl_share);
    /* Calls still in NCCL are in no interval: say so where the share is. */
    unsigned long long open = s->totals.in_flight ? s->totals.in_flight : s->totals.pending;
    if (open)
        fprintf(out, "  in flight  %llu call%s not complete when the files were written, not counted above%s\n",
                open, open == 1 ? "" : "s", r->nhangs ? " (a hang)" : "");
    if (r->nskipped)
        fprintf(out, "  skipped    %zu file%s that could not be read (named on stderr)\n",
                r->nskipped, r->nskipped == 1 ? "" : "s");
    if (r->records_rejected)
        fprintf(out, "  rejected   %llu record%s out of range, left out (files named on stderr)\n",
                (unsigned long long)r->records_rejected, r->records_rejected == 1 ? "" : "s");
    if (s->not_final)
        fprintf(out, "  unfinished %zu file%s not final: the process was still running, "
                "or was killed\n", s->not_final, s->not_final == 1 ? "" : "s");
    if (r->from_trace)
        fputs("  source     LTTng trace: one process per traced vpid; its wall time runs from\n"
              "             its first nccltap event to its last\n", out);
    header_names_free(&h);
}

/* ---- where the time goes ---- */

static void print_top(const struct report_summary *s, FILE *out)
{
    if (!s->ntop)
        return;
    size_t timed = 0;
    for (size_t i = 0; i < s->nlines; i++)
        timed += s->lines[i].time_us > 0.0;
    fprintf(out, "\nWhere the time goes: the top %zu of %zu lines by NCCL time over all ranks\n",
            s->ntop, timed);
    fprintf(out, "  %-16s  %-14s %-10s %6s %12s %7s %7s %10s %10s\n", "comm", "op", "dtype", "size",
            "time_ms", "% NCCL", "% wall", "calls/rank", "busbw GB/s");
    for (size_t i = 0; i < s->ntop; i++) {
        const struct line_summary *l = &s->lines[s->top[i]];
        const struct op_row *k = l->m.first;
        char comm[SHOWN_MAX], op[SHOWN_MAX], dtype[SHOWN_MAX], size[16], wall[16] = "-";
        if (!isnan(l->pct_wall))
            snprintf(wall, sizeof wall, "%.1f%%", l->pct_wall);
        fprintf(out, "  %-16.16s  %-14s %-10s %6s %12.3f %6.1f%% %7s %10llu %10.2f\n",
                shown(k->comm, comm), shown(k->op, op), shown(k->dtype, dtype), human_bytes(l->bytes, size),
                l->time_us / 1e3, l->pct_nccl, wall, (unsigned long long)l->calls_max, l->busbw_gbs);
    }
    fputs("  time_ms: each rank's calls x its mean time, summed over the ranks (a row's first\n"
          "  call kept apart, a group's time shared by its ops); % NCCL: of that sum over every\n"
          "  line; % wall: that share of the time the processes spent in NCCL over their wall time.\n",
          out);
}

/* ---- processes ---- */

/* "3", or "0-3" for a process that holds ranks 0 to 3, "0,2,+5" otherwise. */
static const char *ranks_of(const struct rank_file *f, char buf[32])
{
    if (f->nranks == 0)
        snprintf(buf, 32, "-");
    else if (f->nranks == 1)
        snprintf(buf, 32, "%d", f->ranks[0]);
    else if ((long long)f->ranks[f->nranks - 1] - f->ranks[0] == (long long)f->nranks - 1)
        snprintf(buf, 32, "%d-%d", f->ranks[0], f->ranks[f->nranks - 1]);
    else
        snprintf(buf, 32, "%d,%d,+%zu", f->ranks[0], f->ranks[1], f->nranks - 2);
    return buf;
}

static void print_procs(const struct report_summary *s, FILE *out)
{
    char host[SHOWN_MAX], version[SHOWN_MAX], ranks[32];
    int host_w = 4;
    for (size_t i = 0; i < s->nprocs; i++)
        if ((int)strlen(shown(s->procs[i].file->host, host)) > host_w)
            host_w = (int)strlen(host);
    if (host_w > 40)
        host_w = 40;
    fputs("\nRanks", out);
    if (s->time_lo) {
        fprintf(out, ": time in NCCL per process min %.3f ms (rank %s), mean %.3f ms, max %.3f ms (rank %s",
                s->time_lo->nccl_time_us / 1e3, ranks_of(s->time_lo->file, ranks), s->time_mean_us / 1e3,
                s->time_hi->nccl_time_us / 1e3, ranks_of(s->time_hi->file, version));
        /* The most time in NCCL is often the most waiting for a late rank. */
        if (s->time_hi->wait_us > 0.0)
            fprintf(out, ",\n       %.3f ms of it waiting for the last to arrive", s->time_hi->wait_us / 1e3);
        fputc(')', out);
    }
    bool waits = s->nprocs && !isnan(s->procs[0].wait_us);
    fprintf(out, "\n  %5s  %-*s %8s  %-8s %8s  %7s %12s", "rank", host_w, "host", "pid", "NCCL",
            "wall_s", "in NCCL", "nccl_ms");
    if (waits)
        fprintf(out, " %10s", "wait_ms");
    fprintf(out, " %10s\n", "calls");
    for (size_t i = 0; i < s->nprocs; i++) {
        const struct process_summary *p = &s->procs[s->by_rank[i]];
        const struct rank_file *f = p->file;
        char pct[16] = "-", ms[24] = "-";
        if (!isnan(p->share)) {
            snprintf(pct, sizeof pct, "%.1f%%", 100.0 * p->share);
            snprintf(ms, sizeof ms, "%.3f", p->nccl_time_us / 1e3);
        }
        fprintf(out, "  %5s  %-*.*s %8lld  %-8s %8.2f  %7s %12s", ranks_of(f, ranks), host_w, host_w,
                shown(f->host, host), f->pid, f->nccl_version[0] ? shown(f->nccl_version, version) : "?",
                f->wall_s, pct, ms);
        if (waits)
            fprintf(out, " %10.3f", p->wait_us / 1e3);
        fprintf(out, " %10llu%s%s\n", (unsigned long long)p->calls, p->calls < s->calls_max ? "  fewer" : "",
                p->late ? "  late" : "");
    }
    if (s->fewer_calls)
        fprintf(out, "  fewer: %zu process%s made fewer NCCL calls than the most (%llu): stopped early,\n"
                "  or does other work than the others\n", s->fewer_calls, s->fewer_calls == 1 ? "" : "es",
                (unsigned long long)s->calls_max);
    fputs("  nccl_ms: the process's time in NCCL (in NCCL x wall_s); calls: every NCCL call it made\n", out);
    if (waits)
        fputs("  wait_ms: of nccl_ms, the time its ranks waited at collectives for the last rank to arrive;\n"
              "  late: it arrives last, the others wait for it (Findings, Stragglers)\n", out);
}

/* ---- communicators and their ops ---- */

static void print_comm_heading(const struct comm_summary *c, const char *id,
                               const struct report_summary *s, FILE *out)
{
    char buf[SHOWN_MAX];
    fprintf(out, "\nCommunicator %s", shown(id, buf));
    if (!c) {
        fputs(" (not in any file's communicator list)\n", out);
        return;
    }
    if (c->nranks < 0 && strcmp(c->name, "(overflow)") == 0) { /* the shim's, not one communicator */
        fputs(" \"(overflow)\": calls of communicators past the shim's 4,096, or without memory\n"
              "  (no rank to match its per-op records across ranks by: they are left out)\n", out);
        return;
    }
    if (c->name[0])
        fprintf(out, " \"%s\"", shown_quoted(c->name, buf));
    fprintf(out, ", %d rank%s", c->nranks, c->nranks == 1 ? "" : "s");
    if (c->parent[0]) {
        fprintf(out, ", from %s", shown(c->parent, buf));
        for (size_t i = 0; i < s->ncomms; i++)
            if (strcmp(s->comms[i].id, c->parent) == 0 && s->comms[i].name[0])
                fprintf(out, " \"%s\"", shown_quoted(s->comms[i].name, buf));
    }
    if (c->ranks_seen != (size_t)c->nranks)
        fprintf(out, "  (%zu of %d ranks reported)", c->ranks_seen, c->nranks);
    if (!isnan(c->init_ms))
        fprintf(out, ", init %.1f ms (rank %d)", c->init_ms, c->init_rank);
    fputc('\n', out);
}

static void print_table_head(const struct report_summary *s, const struct layout *lo, FILE *out)
{
    fprintf(out, "  %-14s %-9s %6s %10s %10s %9s %9s %9s", "op", "dtype", "size", "calls/rank",
            "timed/rank", "mean_us", "p50_us", "p99_us");
    if (lo->wide)
        fprintf(out, " %9s %10s", "max_us", "algbw GB/s");
    /* The last column is padded only when one follows. */
    bool sites = s->callsites.nsites;
    fprintf(out, " %10s  %-*s", "busbw GB/s", lo->wide || sites ? 15 : 0, "busbw min(rank)");
    if (lo->wide)
        fprintf(out, " %-*s", sites ? 16 : 0, "busbw max(rank)");
    fputs(sites ? " sites\n" : "\n", out);
}

/* What the default layout leaves of 120 columns for a line's sites. */
#define SITES_ROOM 8

/* " #1,#4": the Call sites section's numbers of the line's sites; past
 * `room` characters (the default layout), "+N" says how many more. */
static void print_sites_of(const struct callsite_summary *cs, const struct op_row *key, size_t room,
                           FILE *out)
{
    size_t idx[8];
    size_t n = callsite_sites_of(cs, key, idx, 8), used = 0;
    for (size_t i = 0; i < n && i < 8; i++) {
        char one[24];
        size_t len = (size_t)snprintf(one, sizeof one, "%s#%zu", i ? "," : " ", idx[i] + 1);
        size_t reserve = i + 1 < n ? 3 : 0;  /* "+NN" for the rest */
        if (used + len + reserve > room) {
            fprintf(out, "%s+%zu", used ? "" : " ", n - i);
            return;
        }
        fputs(one, out);
        used += len;
    }
    if (n > 8)
        fprintf(out, "+%zu", n - 8);
}

/* "20", or "18-20" when ranks differ. */
static const char *per_rank(uint64_t lo, uint64_t hi, char buf[48])
{
    if (lo == hi)
        snprintf(buf, 48, "%llu", (unsigned long long)hi);
    else
        snprintf(buf, 48, "%llu-%llu", (unsigned long long)lo, (unsigned long long)hi);
    return buf;
}

/* Prints one merged line; returns true when it is a grouped op. */
static bool print_line(const struct line_summary *l, const struct report_summary *s,
                       const struct layout *lo, FILE *out)
{
    const struct op_merged *m = &l->m;
    const struct op_row *k = m->first;
    bool grouped = m->grouped > 1.0;
    char op[SHOWN_MAX + 1], dtype[SHOWN_MAX], size[16], calls[48], timed[48];
    snprintf(op, sizeof op, "%s%s", shown(k->op, dtype), grouped ? "*" : "");
    fprintf(out, "  %-14s %-9s %6s %10s %10s", op, shown(k->dtype, dtype), human_bytes(l->bytes, size),
            per_rank(l->calls_min, l->calls_max, calls), per_rank(l->timed_min, l->timed_max, timed));
    char mean[24] = "-", p50[24] = "-", p99[24] = "-", max[24] = "-", algbw[24] = "-", busbw[24] = "-";
    char lo_bw[48] = "-", hi_bw[48] = "-";
    if (!isnan(l->us_mean)) {
        snprintf(mean, sizeof mean, "%.2f", l->us_mean);
        if (!isnan(l->us_p50))
            snprintf(p50, sizeof p50, "%.2f", l->us_p50);
        if (!isnan(l->us_p99))
            snprintf(p99, sizeof p99, "%.2f", l->us_p99);
        snprintf(max, sizeof max, "%.2f", l->us_max);
        snprintf(algbw, sizeof algbw, "%.2f", l->algbw_gbs);
        snprintf(busbw, sizeof busbw, "%.2f", l->busbw_gbs);
        snprintf(lo_bw, sizeof lo_bw, "%.2f (%d%s)", m->busbw_lo, m->busbw_lo_rank, l->lo_rank_waited ? "w" : "");
        snprintf(hi_bw, sizeof hi_bw, "%.2f (%d)", m->busbw_hi, m->busbw_hi_rank);
    }
    fprintf(out, " %9s %9s %9s", mean, p50, p99);
    if (lo->wide)
        fprintf(out, " %9s %10s", max, algbw);
    bool sites = s->callsites.nsites;
    fprintf(out, " %10s  %-*s", busbw, lo->wide || sites ? 15 : 0, lo_bw);
    if (lo->wide)
        fprintf(out, " %-*s", sites ? 16 : 0, hi_bw);
    if (sites)
        print_sites_of(&s->callsites, k, lo->wide ? SIZE_MAX : SITES_ROOM, out);
    fputc('\n', out);
    return grouped;
}

/* The table's one line on first calls: how many lines had one far over
 * their p50, and the slowest. */
static void print_first_calls(const struct report_summary *s, const struct table_summary *t, FILE *out)
{
    const struct line_summary *w = &s->lines[t->worst_first];
    char op[SHOWN_MAX], size[16];
    fprintf(out, "  first calls: %zu of %zu lines had one over 10 x p50, the slowest %.2f us (%s %s, rank %d%s):\n"
            "    NCCL connects lazily; set-up kept out of the times and bandwidth (--json: first_us)\n",
            t->first_far, t->n, w->m.first_us, shown(w->m.first->op, op), human_bytes(w->bytes, size),
            w->m.first_rank, isnan(w->us_p50) ? ", no other call timed" : "");
}

/* The table's lines on CUDA graphs: each line whose calls were captured,
 * with how many times they ran. */
static void print_graph_rows(const struct table_summary *t, const struct report_summary *s, FILE *out)
{
    for (size_t i = t->from; i < t->from + t->n; i++) {
        const struct line_summary *l = &s->lines[i];
        if (!l->m.captured)
            continue;
        char op[SHOWN_MAX], size[16];
        fprintf(out, "  CUDA graphs: %s %s: %llu calls captured, run %llu times (timed %llu; the times and\n"
                "    bandwidth are over these executions)\n",
                shown(l->m.first->op, op), human_bytes(l->bytes, size), (unsigned long long)l->m.captured,
                (unsigned long long)l->m.executions, (unsigned long long)l->m.timed);
    }
}

/* Prints table `t` (lines[t->from ..]) of one communicator. */
static void print_ops(const struct table_summary *t, const struct report_summary *s,
                      const struct layout *lo, FILE *out)
{
    if (!t) {
        fputs("  no operations\n", out);
        return;
    }
    print_table_head(s, lo, out);
    bool any_grouped = false;
    for (size_t i = t->from; i < t->from + t->n; i++)
        any_grouped |= print_line(&s->lines[i], s, lo, out);
    if (any_grouped)
        fputs("  * issued in groups: a group's ops share one time interval, so the\n"
              "    time and the bandwidth are the group's (all its ops' bytes over its time)\n", out);
    print_graph_rows(t, s, out);
    if (t->lo_waited)
        fputs("  (Nw): rank N waited for a late rank: its busbw is low from the wait, not its link (Findings)\n",
              out);
    if (t->first_far)
        print_first_calls(s, t, out);
}

/* The table whose lines start at lines[from], NULL if none. */
static const struct table_summary *table_at(const struct report_summary *s, size_t from)
{
    for (size_t i = 0; i < s->ntables; i++)
        if (s->tables[i].from == from)
            return &s->tables[i];
    return NULL;
}

static void print_comms(const struct report_summary *s, const struct layout *lo, FILE *out)
{
    if (s->nlines || s->ncomms)
        fputs("\nOperations per communicator, merged over its ranks (calls/rank, timed/rank: per rank;\n"
              "a range when ranks differ; busbw min(rank): the lowest rank's busbw, and that rank: the rank\n"
              "whose calls took longest, waiting for a late rank (marked w) or on a slow link)\n", out);
    /* Both are sorted by communicator id: walk them side by side, so that
     * a communicator without ops and ops of an unlisted one both show. */
    size_t i = 0, j = 0;
    while (i < s->ncomms || j < s->nlines) {
        int c = i == s->ncomms ? 1 : j == s->nlines ? -1 : strcmp(s->comms[i].id, s->lines[j].m.first->comm);
        const char *id = c <= 0 ? s->comms[i].id : s->lines[j].m.first->comm;
        print_comm_heading(c <= 0 ? &s->comms[i] : NULL, id, s, out);
        size_t k = j;
        if (c >= 0)
            while (k < s->nlines && strcmp(s->lines[k].m.first->comm, id) == 0)
                k++;
        print_ops(k > j ? table_at(s, j) : NULL, s, lo, out);
        j = k;
        if (c <= 0)
            i++;
    }
}
/* ---- call sites ---- */

#define TOP_SITES 20

/* "worker.c:123", "" when unknown. */
static const char *file_line(const struct site_frame *f, char *buf, size_t len)
{
    char name[SHOWN_MAX];
    if (!f->file[0])
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s:%d", shown(path_base(f->file), name), f->line);
    return buf;
}

/* "step(…) (inlined into run(…))"; with --wide the names whole. */
static const char *function_of(const struct site_frame *f, bool wide, char *buf, size_t len)
{
    char name[SHOWN_MAX], outer[SHOWN_MAX], cut[SHOWN_MAX], cut_outer[SHOWN_MAX];
    /* A Python function's name is short already ("<module>" is one). */
    const char *fn = wide || f->python ? f->function : short_function(f->function, cut, sizeof cut);
    const char *into = wide ? f->inlined_into : short_function(f->inlined_into, cut_outer, sizeof cut_outer);
    if (f->inlined_into[0])
        snprintf(buf, len, "%s (inlined into %s)", shown(fn, name), shown(into, outer));
    else
        snprintf(buf, len, "%s", shown(fn, name));
    return buf;
}

static void print_callsites(const struct callsite_summary *cs, bool wide, FILE *out)
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
                top ? function_of(top, wide, fn, sizeof fn) : "(calls after the shim's table of sites was full)");
        for (size_t k = 1; k < s->first->nframes; k++)
            fprintf(out, "%7s from %-24s %s [%s]\n", "", file_line(&s->first->frames[k], where, sizeof where),
                    function_of(&s->first->frames[k], wide, fn, sizeof fn),
                    shown(s->first->frames[k].library, name));
    }
    if (cs->python_unread)
        fprintf(out, "  NOTE: %llu calls made from Python are at their native site: their Python frame could\n"
                "  not be read (callsite_python_unread)\n", (unsigned long long)cs->python_unread);
    fputs("  time_ms: the site's calls x their mean time (a group's time is shared among its ops);\n"
          "  % NCCL: of the same sum over every op of the run. The op tables below name their sites.\n", out);
}

/* ---- totals ---- */

/* Each counter of the totals: what it counts, and when it is not 0 what
 * that does to the report and what to do (NULL: nothing to do). */
static const struct counter {
    const char *name, *meaning, *effect, *advice;
} counters[] = {
    { "calls", "NCCL calls seen", NULL, NULL },
    { "dropped", "records lost to a full queue (in no row)",
      "the counts and times above miss them", "raise NCCLTAP_RING_SIZE" },
    { "timed", "calls timed precisely with CUDA events: a pair, or (all) the end of the call right before and their own", NULL, NULL },
    { "stamped", "calls whose start and end are known from marks, to the polls' resolution (auto)", NULL, NULL },
    { "untimed", "timing wanted, but no CUDA event was free",
      "they are counted, and the times above are the other calls'", "raise NCCLTAP_MAX_INFLIGHT" },
    { "captured", "issued into a CUDA graph: they run at each launch, untimed", NULL, NULL },
    { "pending", "timed, not complete when the file was written (a hang, or killed)", NULL, NULL },
    { "failed", "NCCL returned an error (in no row)", NULL, NULL },
    { "lost", "timed, but their events never completed (context destroyed)", NULL, NULL },
    { "simulated", "in groups closed by ncclGroupSimulateEnd: never ran, in no row", NULL, NULL },
    { "in_flight", "issued, in no row yet when the file was written (queued or on the GPU)", NULL, NULL },
    { "no_memory", "allocations the shim could not make",
      "the calls it could not record are in (overflow), in no row, or have no group time",
      "give the job more memory" },
};

static uint64_t counter_value(const struct totals *t, size_t i)
{
    const uint64_t v[] = { t->calls, t->dropped, t->timed, t->stamped, t->untimed, t->captured, t->pending,
                           t->failed, t->lost, t->simulated, t->in_flight, t->no_memory };
    return v[i];
}

static void print_totals(const struct report *r, const struct report_summary *s, FILE *out)
{
    const struct totals *t = &s->totals;
    const size_t n = sizeof counters / sizeof counters[0];
    fputs("\nTotals over all ranks\n", out);
    /* Six to a line: twelve counters would not fit 120 columns. */
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s  %s %llu", i && i % 6 == 0 ? "\n" : "", counters[i].name,
                (unsigned long long)counter_value(t, i));
    if (r->from_trace)
        fprintf(out, "  discarded %llu", (unsigned long long)r->discarded);
    if (t->after_exit)
        fprintf(out, "  after_exit %llu", (unsigned long long)t->after_exit);
    fputc('\n', out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "  %-9s %s\n", counters[i].name, counters[i].meaning);
    if (r->from_trace)
        fprintf(out, "  %-9s events LTTng discarded: its buffers were full\n", "discarded");
    if (r->discarded)
        fprintf(out, "WARNING: discarded %llu: LTTng's buffers were full, so the counts and times above\n"
                "  miss them; rerun with nccltap run --lttng --blocking\n", (unsigned long long)r->discarded);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = counter_value(t, i);
        if (v && counters[i].advice)
            fprintf(out, "WARNING: %s %llu: %s;\n  %s: %s\n", counters[i].name, (unsigned long long)v,
                    counters[i].meaning, counters[i].effect, counters[i].advice);
    }
    if (t->ops_lines_dropped)
        fprintf(out, "WARNING: ops_lines_dropped %llu: per-op log lines (NCCLTAP_OPS_JSONL) not written;\n"
                "  the log reached NCCLTAP_OPS_MAX_MB and holds the first ops only: raise NCCLTAP_OPS_MAX_MB\n",
                (unsigned long long)t->ops_lines_dropped);
    if (t->in_flight)
        fprintf(out, "NOTE: in_flight %llu: %s: calls = the rows' calls + dropped + failed\n"
                "  + simulated + after_exit + in_flight\n", (unsigned long long)t->in_flight,
                r->from_trace ? "calls a hang held, never seen complete in the trace\n  (past what its hang event"
                                " knew complete)"
                              : "calls had not completed when their process wrote its file\n  (a hang, or a "
                                "process that was killed)");
    if (t->after_exit)
        fprintf(out, "NOTE: after_exit %llu: calls made while their process was exiting (other threads\n"
                "  still calling NCCL as it wrote its file): counted in calls, in no row\n",
                (unsigned long long)t->after_exit);
    if (t->pending)
        fprintf(out, "NOTE: pending %llu: ops had not completed when their process wrote its file\n"
                "  (a hang, or a process that was killed)\n", (unsigned long long)t->pending);
    if (t->failed)
        fprintf(out, "NOTE: failed %llu: calls returned an NCCL error\n", (unsigned long long)t->failed);
    if (t->lost)
        fprintf(out, "NOTE: lost %llu: timed ops never completed on the GPU (their CUDA context was\n"
                "  destroyed first); they are counted, not timed\n", (unsigned long long)t->lost);
    if (t->comms_past_limit)
        fprintf(out, "WARNING: comms_past_limit %llu: communicators past the shim's 4,096 a process; their\n"
                "  calls are counted in the \"(overflow)\" communicator's rows, not in rows of their own\n",
                (unsigned long long)t->comms_past_limit);
    if (t->graphs_untracked)
        fprintf(out, "WARNING: graphs_untracked %llu: executable CUDA graphs past the shim's 4,096 alive at once;\n"
                "  their launches are not counted: the executions of their captured ops are missing above\n",
                (unsigned long long)t->graphs_untracked);
}

int report_print_text(const struct report *r, const struct report_summary *s,
                      const struct text_options *o, FILE *out)
{
    const struct layout lo = { .wide = o && o->wide };
    print_header(r, s, out);
    fputc('\n', out);
    print_findings(s, out);
    fputs("\n" NOTE_LATENCY
          "  Sizes are in bytes, with binary suffixes (1K = 1024, 1M = 1024K, 1G = 1024M);\n"
          "  a size is nccl-tests' S for its op. Bandwidths are in GB/s (1e9 bytes/s).\n", out);
    print_top(s, out);
    print_procs(s, out);
    print_callsites(&s->callsites, lo.wide, out);
    print_comms(s, &lo, out);
    print_os_interference(r, s, out);
    print_clocks(r, out);
    print_mismatches(s, out);
    print_settings(s, out);
    print_stragglers(r, out);
    print_slow_transfers(r, out);
    print_steps(r, s, out);
    print_onesided(s, out);
    print_entry_points(s, out);
    print_hang(r, &s->findings.hangs, out);
    print_totals(r, s, out);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
