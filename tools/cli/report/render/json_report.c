/* `nccltap report --json`: the merged run as one JSON document, for scripts
 * and dashboards. Per-rank rows are kept (not merged) so that consumers can
 * compute their own spreads; each gets the aggregate bandwidths. */
#include "render.h"
#include "callsites.h"
#include "format.h"
#include "merge.h"
#include "os_interference.h"
#include "summary.h"
#include "util.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Integers stay integers: "bytes" is a mean but the shim writes whole bytes. */
static json_t *number(double v)
{
    if (v == floor(v) && fabs(v) < 9e15)
        return json_integer((json_int_t)v);
    return json_real(v);
}

/* A time or bandwidth, null where there is none: no time is not a time of
 * 0. */
static json_t *known(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static const char *job_of(const struct report *r)
{
    for (size_t i = 0; i < r->nfiles; i++)
        if (r->files[i].job[0])
            return r->files[i].job;
    return "";
}

static json_t *ranks_json(const struct report *r, const struct report_summary *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->nranks; i++) {
        /* Its process's time in NCCL (merge.h): the share of its wall time,
         * and what it is made of; and its calls. */
        const struct rank_summary *k = &s->ranks[i];
        const struct process_summary *p = &s->procs[k->file - r->files];
        const struct nccl_time *t = &p->nccl;
        json_array_append_new(a, json_pack("{s:i, s:s, s:I, s:s, s:f, s:I, s:o, s:{s:o, s:o, s:o, s:f, s:I}}",
            "rank", k->rank, "host", k->file->host, "pid", (json_int_t)k->file->pid,
            "nccl_version", k->file->nccl_version, "wall_s", k->file->wall_s,
            "calls", (json_int_t)p->calls, "nccl_time_us", known(p->nccl_time_us),
            "in_nccl", "share", isnan(t->share) ? json_null() : json_real(t->share),
            "busy_s", isnan(t->busy_s) ? json_null() : json_real(t->busy_s),
            "timed_s", isnan(t->timed_s) ? json_null() : json_real(t->timed_s),
            "untimed_est_s", t->untimed_est_s, "unestimated_calls", (json_int_t)t->unestimated_calls));
    }
    return a;
}

static json_t *comms_json(const struct report_summary *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->nall_comms; i++) {
        const struct comm_summary *c = &s->all_comms[i];
        json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:s, s:I, s:o, s:o}",
            "id", c->id, "name", c->name, "nranks", c->nranks,
            "parent", c->parent, "ranks_seen", (json_int_t)c->ranks_seen,
            /* The slowest rank's init time, and that rank. */
            "init_ms", isnan(c->init_ms) ? json_null() : json_real(c->init_ms),
            "init_rank", isnan(c->init_ms) ? json_null() : json_integer(c->init_rank)));
    }
    return a;
}

/* "callsites": the sites by NCCL time, numbered from 1 in that order. */
static json_t *callsites_json(const struct callsite_summary *cs)
{
    json_t *a = json_array();
    for (size_t i = 0; i < cs->nsites; i++) {
        const struct site_summary *s = &cs->sites[i];
        json_t *frames = json_array();
        for (size_t k = 0; k < s->first->nframes; k++)
            json_array_append_new(frames, site_frame_json(&s->first->frames[k]));
        json_array_append_new(a, json_pack("{s:I, s:o, s:s, s:I, s:I, s:I, s:f, s:f, s:f, s:I}",
            "id", (json_int_t)i + 1, "frames", frames, "op", s->op, "calls", (json_int_t)s->calls,
            "timed", (json_int_t)s->timed, "bytes_total", (json_int_t)s->bytes_total,
            "time_us", s->time_ns / 1e3, "nccl_time_pct", 100.0 * s->share, "busbw_gbs", s->busbw_gbs,
            "processes", (json_int_t)s->nprocs));
    }
    return a;
}

/* The numbers (callsites[].id) of the sites that made calls of the row. */
static json_t *row_sites_json(const struct callsite_summary *cs, const struct op_row *row)
{
    size_t idx[64];
    size_t n = callsite_sites_of(cs, row, idx, 64);
    json_t *a = json_array();
    for (size_t i = 0; i < n && i < 64; i++)
        json_array_append_new(a, json_integer((json_int_t)idx[i] + 1));
    return a;
}


static json_t *totals_json(const struct report *r, const struct report_summary *s)
{
    const struct totals t = s->totals;
    /* "discarded" is the trace's (LTTng's full buffers), not any rank's;
     * 0 for per-rank files, which lose nothing that way. */
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
        "calls", (json_int_t)t.calls, "dropped", (json_int_t)t.dropped,
        "timed", (json_int_t)t.timed, "stamped", (json_int_t)t.stamped, "untimed", (json_int_t)t.untimed,
        "captured", (json_int_t)t.captured, "pending", (json_int_t)t.pending,
        "failed", (json_int_t)t.failed, "lost", (json_int_t)t.lost,
        "simulated", (json_int_t)t.simulated, "in_flight", (json_int_t)t.in_flight,
        "no_memory", (json_int_t)t.no_memory, "discarded", (json_int_t)r->discarded,
        "ops_lines_dropped", (json_int_t)t.ops_lines_dropped, "after_exit", (json_int_t)t.after_exit);
    /* What the shim could not follow, only when there was some, so that
     * the usual document keeps its keys. */
    if (o && t.comms_past_limit)
        json_object_set_new(o, "comms_past_limit", json_integer((json_int_t)t.comms_past_limit));
    if (o && t.graphs_untracked)
        json_object_set_new(o, "graphs_untracked", json_integer((json_int_t)t.graphs_untracked));
    return o;
}

/* Ten significant digits: enough for any bandwidth or time here, and no
 * 0.17000000000000001 noise. */
#define DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

/* ---- the per-rank rows ----
 * A run of thousands of ranks has a million of them: they are written one
 * line each with one fprintf, not built as JSON trees, which took three
 * times as long (BENCHMARKS.md, the report at scale). */

/* A string: as it is when nothing in it needs escaping (names in the files
 * are mostly plain), else as jansson escapes it; bytes that are not UTF-8
 * (a foreign trace's names) as \u00XX each, so that the output stays JSON. */
static void put_string(const char *s, FILE *out)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p && *p >= 0x20 && *p != '"' && *p != '\\' && *p < 0x7f)
        p++;
    if (!*p) {
        fprintf(out, "\"%s\"", s);
        return;
    }
    json_t *v = json_string(s);
    if (v) {
        json_dumpf(v, out, JSON_ENCODE_ANY);
        json_decref(v);
        return;
    }
    fputc('"', out);
    for (p = (const unsigned char *)s; *p; p++)
        if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
            fputc(*p, out);
        else
            fprintf(out, "\\u%04x", *p);
    fputc('"', out);
}

/* ,"key":v: a time or bandwidth, null where there is none, as known()
 * gives it; no comma when it is the first of its object. */
static void put_real(const char *key, double v, bool first, FILE *out)
{
    fprintf(out, "%s\"%s\":", first ? "" : ",", key);
    if (v == floor(v) && fabs(v) < 9e15)  /* whole: exact, as number() keeps it */
        fprintf(out, "%.0f", v);
    else if (isfinite(v))
        fprintf(out, "%.10g", v);
    else
        fputs("null", out);
}

static void put_row(const struct op_row *row, const struct callsite_summary *cs, FILE *out)
{
    /* No timed call but the first (kept apart): nothing to say, whatever a
     * file of an older nccltap wrote there. */
    double none = row->t_count > 0 ? 0.0 : NAN;
    fprintf(out, "{\"rank\":%d,\"comm\":", row->rank);
    put_string(row->comm, out);
    fputs(",\"comm_name\":", out);
    put_string(row->comm_name, out);
    fputs(",\"op\":", out);
    put_string(row->op, out);
    fputs(",\"dtype\":", out);
    put_string(row->dtype, out);
    fprintf(out, ",\"size_class\":%" PRIu64, row->size_class);
    put_real("bytes", row->bytes, false, out);
    fprintf(out, ",\"calls\":%" PRIu64 ",\"bytes_total\":%" PRIu64 ",\"timed\":%" PRIu64,
            row->calls, row->bytes_total, row->timed);
    put_real("grouped", row->grouped, false, out);
    put_real("first_us", row->first_us, false, out);
    fputs(",\"time_us\":{", out);
    const struct { const char *key; double v; } times[] = {
        { "mean", row->us_mean }, { "min", row->us_min }, { "p50", row->us_p50 },
        { "p90", row->us_p90 }, { "p99", row->us_p99 }, { "max", row->us_max } };
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        put_real(times[i].key, times[i].v + none, i == 0, out);
    fputc('}', out);
    put_real("algbw_gbs", row->algbw_gbs + none, false, out);
    put_real("busbw_gbs", row->busbw_gbs + none, false, out);
    put_real("algbw_total_gbs", op_row_algbw_total(row) + none, false, out);
    put_real("busbw_total_gbs", op_row_busbw_total(row) + none, false, out);
    if (cs->nsites) {
        size_t idx[64];
        size_t n = callsite_sites_of(cs, row, idx, 64);
        fputs(",\"sites\":[", out);
        for (size_t i = 0; i < n && i < 64; i++)
            fprintf(out, "%s%zu", i ? "," : "", idx[i] + 1);
        fputc(']', out);
    }
    fputc('}', out);
}

/* Prints `value` as JSON_INDENT(2) would at `depth` levels down: JSON
 * strings hold no raw newline, so each one starts a line to indent. Takes
 * over the reference. */
static int dump_at(json_t *value, int depth, FILE *out)
{
    char *text = value ? json_dumps(value, DUMP_FLAGS | JSON_ENCODE_ANY) : NULL;
    json_decref(value);
    if (!text)
        return -1;
    for (const char *p = text, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl) {
            fputs(p, out);
            break;
        }
        fwrite(p, 1, (size_t)(nl - p) + 1, out);
        fprintf(out, "%*s", 2 * depth, "");
    }
    free(text);
    return 0;
}

static int member(const char *key, json_t *value, bool last, FILE *out)
{
    fprintf(out, "  \"%s\": ", key);
    int rc = dump_at(value, 1, out);
    fputs(last ? "\n" : ",\n", out);
    return rc;
}

/* One merged line of the op tables ("rows"): its ranks' rows put together,
 * and the spread between them. */
static json_t *line_json(const struct line_summary *l, const struct callsite_summary *cs)
{
    const struct op_merged *m = &l->m;
    const struct op_row *k = m->first;
    bool timed = !isnan(l->us_mean);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:I, s:I, s:{s:I, s:I}, s:I, s:{s:I, s:I}, s:I,"
                          " s:f, s:o, s:o, s:{s:o, s:o, s:o, s:o, s:o}, s:o, s:o,"
                          " s:{s:o, s:o, s:o, s:o}, s:f, s:f, s:o}",
        "comm", k->comm, "comm_name", l->comm ? l->comm->name : k->comm_name, "op", k->op, "dtype", k->dtype,
        "size_class", (json_int_t)k->size_class,
        "bytes", number(l->bytes),
        "ranks", (json_int_t)m->nrows, "calls", (json_int_t)m->calls,
        "calls_per_rank", "min", (json_int_t)l->calls_min, "max", (json_int_t)l->calls_max,
        "timed", (json_int_t)m->timed,
        "timed_per_rank", "min", (json_int_t)l->timed_min, "max", (json_int_t)l->timed_max,
        "bytes_total", (json_int_t)m->bytes_total, "grouped", m->grouped,
        "first_us", known(m->first_us), "first_rank", isnan(m->first_us) ? json_null() : json_integer(m->first_rank),
        "time_us", "mean", known(l->us_mean), "min", known(l->us_min), "p50", known(l->us_p50),
        "p99", known(l->us_p99), "max", known(l->us_max),
        "algbw_gbs", known(l->algbw_gbs), "busbw_gbs", known(l->busbw_gbs),
        "busbw_spread", "min_gbs", known(timed ? m->busbw_lo : NAN),
        "min_rank", timed ? json_integer(m->busbw_lo_rank) : json_null(),
        "max_gbs", known(timed ? m->busbw_hi : NAN), "max_rank", timed ? json_integer(m->busbw_hi_rank) : json_null(),
        "time_us_total", l->time_us, "pct_nccl", l->pct_nccl, "pct_wall", known(l->pct_wall));
    if (o && m->captured) {
        json_object_set_new(o, "captured", json_integer((json_int_t)m->captured));
        json_object_set_new(o, "executions", json_integer((json_int_t)m->executions));
    }
    if (o && cs->nsites)
        json_object_set_new(o, "sites", row_sites_json(cs, k));
    return o;
}

static int rows_member(const struct report_summary *s, FILE *out)
{
    fputs("  \"rows\": [", out);
    int rc = 0;
    for (size_t i = 0; i < s->nlines && rc == 0; i++) {
        fputs(i ? ",\n    " : "\n    ", out);
        rc = dump_at(line_json(&s->lines[i], &s->callsites), 2, out);
    }
    fputs(s->nlines ? "\n  ],\n" : "],\n", out);
    return rc;
}

/* "top": where the time goes, the lines by NCCL time, descending. */
static json_t *top_json(const struct report_summary *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->ntop; i++) {
        const struct line_summary *l = &s->lines[s->top[i]];
        const struct op_row *k = l->m.first;
        json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:o, s:I, s:f, s:f, s:o}",
            "comm", k->comm, "comm_name", l->comm ? l->comm->name : k->comm_name, "op", k->op,
            "dtype", k->dtype, "bytes", number(l->bytes),
            "size_class", (json_int_t)k->size_class, "time_us_total", l->time_us, "pct_nccl", l->pct_nccl,
            "pct_wall", known(l->pct_wall)));
    }
    return a;
}

/* The per-rank rows, one at a time: a run of thousands of ranks has a
 * million of them, too many to hold as one JSON tree. */
static int ops_member(const struct report_summary *s, FILE *out)
{
    fputs("  \"ops\": [", out);
    for (size_t i = 0; i < s->nrows; i++) {
        fputs(i ? ",\n    " : "\n    ", out);
        put_row(s->rows[i], &s->callsites, out);
    }
    fputs(s->nrows ? "\n  ],\n" : "],\n", out);
    return 0;
}

/* One row per op that lost time to the OS (analyze/os_interference.c). */
static json_t *os_json(const struct report *r, const struct os_interference *os)
{
    json_t *a = json_array();
    for (size_t i = 0; i < os->nrows; i++) {
        const struct os_row *w = &os->rows[i];
        char comm[17];
        snprintf(comm, sizeof comm, "%016" PRIx64, w->op->comm);
        const struct kernel_trace *k = kernel_of(r, w->file);
        json_array_append_new(a, json_pack(
            "{s:i, s:s, s:I, s:s, s:s, s:I, s:f, s:f, s:f, s:s?, s:f, s:o, s:s?, s:s?, s:i, s:b, s:f, s:s}",
            "rank", w->op->rank, "comm", comm, "seq", (json_int_t)w->op->seq, "op", report_name(r, w->op->op),
            "host", w->file->host, "pid", (json_int_t)w->file->pid,
            "offcpu_us", w->offcpu_ns / 1e3, "preempted_us", w->preempted_ns / 1e3,
            "waiting_us", w->waiting_ns / 1e3, "preempted_by", w->preempted_by,
            "irq_us", w->irq_ns / 1e3, "irq", w->irq_name ? json_integer(w->irq) : json_null(),
            "irq_name", w->irq_name, "thread", w->thread ? w->thread->comm : NULL,
            "tid", w->thread ? w->thread->tid : 0,
            "straggler", w->straggler, "wait_us", w->wait_ns / 1e3,
            "source", k && k->from_shim ? "shim" : "kernel"));
    }
    return a;
}

/* nccltap-bench's own busbw per op and size, where its results are beside
 * the run; [] otherwise. */
static json_t *bench_json(const struct report_summary *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->nbench; i++)
        json_array_append_new(a, json_pack("{s:s, s:I, s:f, s:I}", "op", s->bench[i].op, "bytes",
                                           (json_int_t)s->bench[i].bytes, "busbw_gbs", s->bench[i].busbw_gbs,
                                           "ranks", (json_int_t)s->bench[i].nranks));
    return a;
}

/* Each process's loss over all its ops (the union of their windows). */
static json_t *os_procs_json(const struct os_interference *os)
{
    json_t *a = json_array();
    for (size_t i = 0; i < os->nprocs; i++) {
        const struct os_proc *p = &os->procs[i];
        const struct rank_file *f = p->file;
        json_array_append_new(a, json_pack("{s:o, s:s, s:I, s:f, s:f, s:f, s:f}", "rank",
                                           f->nranks ? json_integer(f->ranks[0]) : json_null(), "host", f->host,
                                           "pid", (json_int_t)f->pid, "offcpu_us", p->offcpu_ns / 1e3,
                                           "preempted_us", p->preempted_ns / 1e3, "irq_us", p->irq_ns / 1e3,
                                           "explained_wait_us", p->explained_ns / 1e3));
    }
    return a;
}

/* Where the OS view came from (analyze/os_interference.h, sources). */
static json_t *os_sources_json(const struct os_sources *o)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:s?, s:I, s:I, s:I, s:I}", "kernel_hosts", (json_int_t)o->kernel_hosts,
                     "shim_processes", (json_int_t)o->shim_files, "shim_unused", (json_int_t)o->shim_unused,
                     "refused", (json_int_t)o->refused, "refused_why", o->note, "off", (json_int_t)o->off,
                     "lost", (json_int_t)o->lost, "dropped", (json_int_t)o->dropped,
                     "unfollowed", (json_int_t)o->unfollowed);
}

int report_print_json(const struct report *r, const struct report_summary *s, FILE *out)
{
    fputs("{\n", out);
    /* The verdict first (analyze/findings.h), right after the version. */
    int rc = member("format", json_string(REPORT_JSON_FORMAT), false, out);
    rc |= member("findings", findings_json(s), false, out);
    rc |= member("checked", findings_checked_json(s), false, out);
    rc |= member("job", json_string(job_of(r)), false, out);
    rc |= member("wall_s", json_real(s->wall_s), false, out);
    rc |= member("files", json_integer((json_int_t)r->nfiles), false, out);
    /* Processes whose NCCL was nccltap's simulator (tests/sim). */
    rc |= member("simulated", json_integer((json_int_t)s->simulated), false, out);
    rc |= member("ranks", ranks_json(r, s), false, out);
    rc |= member("comms", comms_json(s), false, out);
    rc |= member("top", top_json(s), false, out);
    rc |= rows_member(s, out);
    rc |= ops_member(s, out);
    /* Present when a trace had kernel events or a rank file the shim's
     * context-switch records: [] then means none found. */
    const struct os_sources *src = &s->os.sources;
    if (src->kernel_hosts || src->shim_files) {
        rc |= member("os_interference", os_json(r, &s->os), false, out);
        rc |= member("os_processes", os_procs_json(&s->os), false, out);
    }
    rc |= member("os_sources", os_sources_json(src), false, out);
    rc |= member("crossrank", crossrank_json(r), false, out);
    rc |= member("hang", hang_json(&s->findings.hangs), false, out);
    rc |= member("mismatches", mismatches_json(s), false, out);
    rc |= member("settings", settings_json(s), false, out);
    rc |= member("stragglers", stragglers_json(r), false, out);
    rc |= member("slow_transfers", slow_transfers_json(r), false, out);
    rc |= member("steps", steps_json(r, s), false, out);
    rc |= member("onesided", onesided_json(s), false, out);
    rc |= member("entry_points", entry_points_json(s), false, out);
    rc |= member("callsite_depth", json_integer(s->callsites.depth), false, out);
    rc |= member("callsites", callsites_json(&s->callsites), false, out);
    rc |= member("callsite_python_unread", json_integer((json_int_t)s->callsites.python_unread), false, out);
    rc |= member("bench", bench_json(s), false, out);
    /* Records of any input out of range, left out (load/record_check.h). */
    rc |= member("records_rejected", json_integer((json_int_t)r->records_rejected), false, out);
    rc |= member("totals", totals_json(r, s), true, out);
    fputs("}\n", out);
    if (rc != 0)
        msg("cannot build the JSON report");
    return rc == 0 && !ferror(out) ? 0 : -1;
}
