#include "summary.h"
#include "crossrank_base.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool comm_matches(const struct summary_options *o, const char *id, const char *name)
{
    return !o->comm || strcmp(o->comm, id) == 0 || (name && name[0] && strcmp(o->comm, name) == 0);
}

static const struct comm_summary *find_comm(const struct comm_summary *c, size_t n, const char *id)
{
    for (size_t lo = 0, hi = n; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;
        int d = strcmp(id, c[mid].id);
        if (d == 0)
            return &c[mid];
        if (d < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

static bool row_kept(const struct summary_options *o, const struct op_row *k, const char *comm_name)
{
    return comm_matches(o, k->comm, comm_name) && (!o->op || strcasecmp(o->op, k->op) == 0);
}

static bool line_kept(const struct summary_options *o, const struct line_summary *l)
{
    const struct op_row *k = l->m.first;
    return row_kept(o, k, l->comm && l->comm->name[0] ? l->comm->name : k->comm_name);
}

static bool summary_keeps_row(const struct report_summary *s, const struct op_row *row)
{
    const struct comm_summary *c = find_comm(s->comms, s->ncomms, row->comm);
    return row_kept(&s->options, row, c && c->name[0] ? c->name : row->comm_name);
}

static void summarize_line(const struct op_row *const *rows, size_t n, struct line_summary *l)
{
    memset(l, 0, sizeof *l);
    op_merge(rows, n, &l->m);
    l->calls_min = l->timed_min = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        const struct op_row *row = rows[i];
        l->calls_min = row->calls < l->calls_min ? row->calls : l->calls_min;
        l->calls_max = row->calls > l->calls_max ? row->calls : l->calls_max;
        l->timed_min = row->timed < l->timed_min ? row->timed : l->timed_min;
        l->timed_max = row->timed > l->timed_max ? row->timed : l->timed_max;
        l->time_us += op_row_time_us(row);
    }
    const struct op_merged *m = &l->m;
    l->bytes = m->calls ? (double)m->bytes_total / (double)m->calls : m->first->bytes;
    bool timed = m->t_count && m->t_sum;
    l->us_mean = timed ? (double)m->t_sum / (double)m->t_count / 1e3 : NAN;
    l->us_min = timed ? (double)m->t_min / 1e3 : NAN;
    l->us_max = timed ? (double)m->t_max / 1e3 : NAN;
    l->us_p50 = timed && m->p50_ns >= 0 ? m->p50_ns / 1e3 : NAN;
    l->us_p99 = timed && m->p99_ns >= 0 ? m->p99_ns / 1e3 : NAN;
    l->algbw_gbs = timed ? m->bw_bytes / (double)m->t_sum : NAN;   /* bytes per ns: GB/s */
    l->busbw_gbs = timed ? m->bw_busbytes / (double)m->t_sum : NAN;
    l->first_far = !isnan(m->first_us) && (isnan(l->us_p50) || m->first_us > 10.0 * l->us_p50);
}

/* The merged lines, all of them; s->nccl_time_us their time. */
static void summarize_lines(const struct report *r, struct report_summary *s)
{
    size_t nrows;
    const struct op_row **rows = report_rows(r, &nrows);
    s->lines = xcalloc(nrows ? nrows : 1, sizeof *s->lines);
    for (size_t i = 0; i < nrows;) {
        size_t j = i + 1;
        while (j < nrows && op_row_same_key(rows[i], rows[j]))
            j++;
        struct line_summary *l = &s->lines[s->nlines++];
        summarize_line(rows + i, j - i, l);
        l->comm = find_comm(s->comms, s->ncomms, rows[i]->comm);
        s->nccl_time_us += l->time_us;
        i = j;
    }
    free(rows);
}

static int cmp_proc(const void *a, const void *b)
{
    const struct process_summary *x = *(const struct process_summary *const *)a;
    const struct process_summary *y = *(const struct process_summary *const *)b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    int c = strcmp(x->file->host, y->file->host);
    return c ? c : (x->file->pid > y->file->pid) - (x->file->pid < y->file->pid);
}

/* Each process's calls and time in NCCL, and their spread. */
static void summarize_procs(const struct report *r, struct report_summary *s)
{
    s->procs = xcalloc(r->nfiles ? r->nfiles : 1, sizeof *s->procs);
    s->nprocs = r->nfiles;
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        double share = rank_file_nccl_share(f);
        s->procs[i] = (struct process_summary){ .file = f, .rank = f->nranks ? f->ranks[0] : -1,
                                                .calls = f->totals.calls, .nccl_time_us = share * f->wall_s * 1e6,
                                                .share = share, .wait_us = NAN, .transfer_us = NAN };
        rank_file_nccl_time(f, &s->procs[i].nccl);
    }
    const struct process_summary **sorted = xcalloc(s->nprocs ? s->nprocs : 1, sizeof *sorted);
    for (size_t i = 0; i < s->nprocs; i++)
        sorted[i] = &s->procs[i];
    qsort(sorted, s->nprocs, sizeof *sorted, cmp_proc);
    s->by_rank = xcalloc(s->nprocs ? s->nprocs : 1, sizeof *s->by_rank);
    for (size_t i = 0; i < s->nprocs; i++)
        s->by_rank[i] = (size_t)(sorted[i] - s->procs);
    free(sorted);
    size_t known = 0;
    for (size_t i = 0; i < s->nprocs; i++) {
        const struct process_summary *p = &s->procs[i];
        if (p->calls > s->calls_max)
            s->calls_max = p->calls;
        if (isnan(p->nccl_time_us))
            continue;
        known++;
        s->time_mean_us += p->nccl_time_us;
        if (!s->time_lo || p->nccl_time_us < s->time_lo->nccl_time_us)
            s->time_lo = p;
        if (!s->time_hi || p->nccl_time_us > s->time_hi->nccl_time_us)
            s->time_hi = p;
    }
    s->time_mean_us = known ? s->time_mean_us / (double)known : NAN;
    for (size_t i = 0; i < s->nprocs; i++)
        s->fewer_calls += s->procs[i].calls < s->calls_max;
}

static int cmp_bench_row(const void *a, const void *b)
{
    const struct bench_row *x = a, *y = b;
    int c = strcmp(x->op, y->op);
    return c ? c : (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* The bench's busbw per op and size, the median over its ranks. */
static void summarize_bench(const struct report *r, struct report_summary *s)
{
    if (!r->nbench)
        return;
    struct bench_row *rows = xmalloc(r->nbench * sizeof *rows);
    memcpy(rows, r->bench, r->nbench * sizeof *rows);
    qsort(rows, r->nbench, sizeof *rows, cmp_bench_row);
    s->bench = xcalloc(r->nbench, sizeof *s->bench);
    double *v = xmalloc(r->nbench * sizeof *v);
    for (size_t i = 0; i < r->nbench;) {
        size_t j = i, n = 0;
        for (; j < r->nbench && cmp_bench_row(&rows[i], &rows[j]) == 0; j++)
            v[n++] = rows[j].busbw_gbs;
        s->bench[s->nbench++] = (struct bench_summary){ rows[i].op, rows[i].bytes, xr_median(v, n), n };
        i = j;
    }
    free(v);
    free(rows);
}

/* Each process's wait for the last to arrive (r->cross), and the rest of
 * its time in NCCL; NaN waits without per-op records. */
static void waits_of_procs(const struct report *r, struct report_summary *s)
{
    const struct crossrank *x = r->cross;
    bool records = x && (x->ninstances || x->npairs);
    for (size_t i = 0; i < s->nprocs; i++)
        s->procs[i].wait_us = records ? 0.0 : NAN;
    if (!records)
        return;
    for (size_t i = 0; i < x->nwaits; i++)
        if (x->waits[i].file < s->nprocs)
            s->procs[x->waits[i].file].wait_us += x->waits[i].wait_us_total;
    for (size_t i = 0; i < s->nprocs; i++) {
        struct process_summary *p = &s->procs[i];
        double t = p->nccl_time_us - p->wait_us;  /* NaN when either is */
        p->transfer_us = t < 0.0 ? 0.0 : t;
    }
}

/* A process is late where the findings name it a straggler: the Ranks
 * table's mark and the Findings block must agree, and a rank last now and
 * then on a loaded machine (the Stragglers section's 10%) is no culprit. */
static void late_procs(const struct report *r, struct report_summary *s)
{
    for (size_t i = 0; i < s->findings.n; i++) {
        const struct finding *v = &s->findings.v[i];
        if (v->kind == FINDING_STRAGGLER && v->file && (size_t)(v->file - r->files) < s->nprocs)
            s->procs[v->file - r->files].late = true;
    }
}

/* Each line a slow transfer or below-expected finding is about. */
static void slow_lines(struct report_summary *s)
{
    for (size_t i = 0; i < s->findings.n; i++) {
        const struct finding *f = &s->findings.v[i];
        if ((f->kind != FINDING_SLOW_TRANSFER && f->kind != FINDING_BELOW_EXPECTED) || !f->op)
            continue;
        for (size_t k = 0; k < s->nlines; k++) {
            struct line_summary *l = &s->lines[k];
            const struct op_row *o = l->m.first;
            if (strcmp(f->op, o->op) == 0 && f->bytes >= o->size_class && f->bytes < 2 * o->size_class &&
                (!f->comm || strtoull(o->comm, NULL, 16) == f->comm))
                l->slow = true;
        }
    }
}

/* True when `rank` of communicator `comm` waited for a late rank at its
 * collectives (over the clocks' threshold, on average) and is not late
 * itself. */
static bool rank_waited(const struct crossrank *x, uint64_t comm, int rank)
{
    for (size_t i = 0; i < x->nstragglers; i++)
        if (x->stragglers[i].comm == comm && x->stragglers[i].rank == rank)
            return false;
    for (size_t i = 0; i < x->nwaits; i++)
        if (x->waits[i].comm == comm && x->waits[i].rank == rank)
            return x->waits[i].wait_us_mean * 1e3 > x->threshold_ns;
    return false;
}

/* The op tables: one per communicator's run of lines, with what its
 * footnotes say; and each line's lo_rank_waited. */
static void summarize_tables(const struct report *r, struct report_summary *s)
{
    const struct crossrank *x = r->cross;
    s->tables = xcalloc(s->nlines ? s->nlines : 1, sizeof *s->tables);
    for (size_t i = 0; i < s->nlines;) {
        struct table_summary *t = &s->tables[s->ntables++];
        t->from = i;
        while (i < s->nlines && strcmp(s->lines[i].m.first->comm, s->lines[t->from].m.first->comm) == 0) {
            struct line_summary *l = &s->lines[i];
            if (x && x->nstragglers && !isnan(l->us_mean))
                l->lo_rank_waited = rank_waited(x, strtoull(l->m.first->comm, NULL, 16), l->m.busbw_lo_rank);
            t->lo_waited += l->lo_rank_waited;
            if (l->first_far && (!t->first_far++ || l->m.first_us > s->lines[t->worst_first].m.first_us))
                t->worst_first = i;
            i++;
        }
        t->n = i - t->from;
    }
}

/* pct_nccl and pct_wall of every line. */
static void shares_of_lines(struct report_summary *s)
{
    double wall_us = 0.0, busy_us = 0.0;
    for (size_t i = 0; i < s->nprocs; i++) {
        wall_us += s->procs[i].file->wall_s * 1e6;
        busy_us += s->procs[i].nccl_time_us;  /* NaN when any is unknown */
    }
    double in_nccl = wall_us > 0.0 ? busy_us / wall_us : NAN;
    for (size_t i = 0; i < s->nlines; i++) {
        struct line_summary *l = &s->lines[i];
        l->pct_nccl = s->nccl_time_us > 0.0 ? 100.0 * l->time_us / s->nccl_time_us : 0.0;
        l->pct_wall = l->pct_nccl * in_nccl;
    }
}

/* Keeps the lines and communicators the filters ask for. */
static void apply_filters(const struct summary_options *o, struct report_summary *s)
{
    size_t kept = 0;
    for (size_t i = 0; i < s->nlines; i++)
        if (line_kept(o, &s->lines[i]))
            s->lines[kept++] = s->lines[i];
    s->nlines = kept;
    /* Both are sorted by id: walk them side by side. */
    kept = 0;
    for (size_t i = 0, j = 0; i < s->ncomms; i++) {
        const struct comm_summary *c = &s->comms[i];
        while (j < s->nlines && strcmp(s->lines[j].m.first->comm, c->id) < 0)
            j++;
        bool has_lines = j < s->nlines && strcmp(s->lines[j].m.first->comm, c->id) == 0;
        if (comm_matches(o, c->id, c->name) && (!o->op || has_lines))
            s->comms[kept++] = *c;
    }
    /* The lines point at communicators that moved: find them again. */
    s->ncomms = kept;
    for (size_t i = 0; i < s->nlines; i++)
        s->lines[i].comm = find_comm(s->comms, s->ncomms, s->lines[i].m.first->comm);
}

/* By time, descending; lines of equal time in table order. */
static int cmp_top(const void *a, const void *b)
{
    const struct line_summary *x = *(const struct line_summary *const *)a;
    const struct line_summary *y = *(const struct line_summary *const *)b;
    if (x->time_us != y->time_us)
        return x->time_us > y->time_us ? -1 : 1;
    return (x > y) - (x < y);
}

static void rank_top(const struct summary_options *o, struct report_summary *s)
{
    const struct line_summary **by_time = xcalloc(s->nlines ? s->nlines : 1, sizeof *by_time);
    size_t n = 0;
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].time_us > 0.0)
            by_time[n++] = &s->lines[i];
    qsort(by_time, n, sizeof *by_time, cmp_top);
    s->ntop = n < o->top ? n : o->top;
    s->top = xcalloc(s->ntop ? s->ntop : 1, sizeof *s->top);
    for (size_t i = 0; i < s->ntop; i++)
        s->top[i] = (size_t)(by_time[i] - s->lines);
    free(by_time);
}

/* s->rows: every file's rows that the filters keep, in report_rows's order. */
static void keep_rows(const struct report *r, struct report_summary *s)
{
    size_t n;
    const struct op_row **rows = report_rows(r, &n);
    for (size_t i = 0; i < n; i++)
        if (summary_keeps_row(s, rows[i]))
            rows[s->nrows++] = rows[i];
    s->rows = rows;
}

void report_summarize(const struct report *r, const struct summary_options *o,
                      struct report_summary *s)
{
    memset(s, 0, sizeof *s);
    s->options = *o;
    double share_sum = 0.0;
    size_t shares = 0;
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        if (f->wall_s > s->wall_s)
            s->wall_s = f->wall_s;
        double share = rank_file_nccl_share(f);
        if (!isnan(share)) {
            share_sum += share;
            shares++;
        }
        s->not_final += !f->final;
        s->simulated += f->nccl_simulated;
        totals_add(&s->totals, &f->totals);
    }
    s->nccl_share = shares ? share_sum / (double)shares : NAN;
    s->comms = report_comms(r, &s->ncomms);
    s->all_comms = report_comms(r, &s->nall_comms);
    s->ranks = report_ranks(r, &s->nranks);
    summarize_lines(r, s);
    summarize_procs(r, s);
    shares_of_lines(s);
    apply_filters(o, s);
    keep_rows(r, s);
    rank_top(o, s);
    waits_of_procs(r, s);
    summarize_tables(r, s);
    report_callsites(r, &s->callsites);
    os_interference_analyze(r, &s->os);
    mismatch_analyze(r, &s->mismatches);
    settings_analyze(r, &s->settings);
    steps_analyze(r, r->cross, &s->steps);
    onesided_analyze(r, &s->onesided);
    entry_points_analyze(r, &s->entry_points);
    const struct finding_sources in = { .r = r, .os = &s->os, .mm = &s->mismatches, .sd = &s->settings,
                                        .steps = &s->steps };
    findings_analyze(&in, &s->findings);
    late_procs(r, s);
    slow_lines(s);
    summarize_bench(r, s);
}

void report_summary_free(struct report_summary *s)
{
    free(s->bench);
    free(s->comms);
    free(s->all_comms);
    free(s->ranks);
    free(s->rows);
    free(s->lines);
    free(s->top);
    free(s->procs);
    free(s->by_rank);
    callsite_summary_free(&s->callsites);
    os_interference_free(&s->os);
    free(s->tables);
    findings_free(&s->findings);
    mismatches_free(&s->mismatches);
    settings_drift_free(&s->settings);
    steps_free(&s->steps);
    onesided_free(&s->onesided);
    entry_points_free(&s->entry_points);
    memset(s, 0, sizeof *s);
}
