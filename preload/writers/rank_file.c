#include "writers/rank_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "writers/callsite_out.h"
#include "state/graph_table.h"
#include "state/comm_config.h"
#include "state/comm_registry.h"
#include "state/entry_events.h"
#include "state/step_marks.h"
#include "base/config.h"
#include "cuda/gpu_timing.h"
#include "base/json_writer.h"
#include "base/log.h"
#include "base/monotonic.h"
#include "writers/ops_log.h"
#include "writers/os_out.h"
#include "base/out_file.h"
#include "writers/output.h"
#include "nccl/real_nccl.h"
#include "writers/snapshot.h"
#include "base/process.h"
#include "state/shared.h"
#include "stats/stats.h"

static char path[4096 + TAP_OUT_NAME_MAX + 1];
static atomic_flag write_error_said = ATOMIC_FLAG_INIT;
static _Atomic bool written; /* the file exists: the summary may point at it */

const char *tap_rank_file_path(void)
{
    char name[TAP_OUT_NAME_MAX];
    tap_output_name(name, sizeof name, ".json");
    snprintf(path, sizeof path, "%s/%s", tap_config.dir, name);
    return path;
}

bool tap_rank_file_written(void)
{
    return atomic_load(&written);
}

void tap_rank_file_reset(void)
{
    atomic_store(&written, false);
    atomic_flag_clear(&write_error_said);
}

static bool is_root(const struct tap_comm *c)
{
    return c->origin <= TAP_ORIGIN_SCALABLE;
}

/* Ranks this process holds in root communicators, ascending, distinct. */
static void write_ranks(FILE *f)
{
    fputs("  \"ranks\": [", f);
    int last = -1;
    for (;;) {
        int next = -1;
        for (unsigned i = 0; i < tap_comm_count(); i++) {
            const struct tap_comm *c = tap_comm_at(i);
            if (is_root(c) && c->rank > last && (next < 0 || c->rank < next))
                next = c->rank;
        }
        if (next < 0)
            break;
        fprintf(f, "%s%d", last < 0 ? "" : ", ", next);
        last = next;
    }
    fputs("],\n", f);
}

/* A config field: null where NCCL leaves it undefined or its version
 * lacks it. */
static void config_int(FILE *f, const char *key, int v)
{
    fprintf(f, ", \"%s\": ", key);
    if (v == TAP_CONFIG_UNSET)
        fputs("null", f);
    else
        fprintf(f, "%d", v);
}

/* The ncclConfig_t its creation was given, or null. */
static void write_config(FILE *f, const struct tap_comm_config *c)
{
    if (!c->given) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"version\": %u", c->version);
    config_int(f, "blocking", c->blocking);
    config_int(f, "cga_cluster_size", c->cga_cluster_size);
    config_int(f, "min_ctas", c->min_ctas);
    config_int(f, "max_ctas", c->max_ctas);
    config_int(f, "split_share", c->split_share);
    config_int(f, "traffic_class", c->traffic_class);
    fputs(", \"net_name\": ", f);
    if (c->net_name[0])
        json_string(f, c->net_name);
    else
        fputs("null", f);
    fputc('}', f);
}

/* The process's NCCL_* variables when its first communicator was created
 * ("nccl_env"), and NCCL's effective parameters then ("nccl_params",
 * where NCCL has its parameter API): names and hashes of the values, never
 * the values (state/comm_config.h). */
static void write_vars(FILE *f, const char *key, const struct tap_nccl_env *e)
{
    fprintf(f, "  \"%s\": {\"read\": %s, \"not_kept\": %u, \"vars\": [", key, e->read ? "true" : "false", e->more);
    for (unsigned i = 0; i < e->n; i++) {
        fputs(i ? ", {\"name\": " : "{\"name\": ", f);
        json_string(f, e->vars[i].name);
        fprintf(f, ", \"hash\": \"%016llx\"}", (unsigned long long)e->vars[i].hash);
    }
    fputs("]},\n", f);
}

static void write_nccl_env(FILE *f)
{
    write_vars(f, "nccl_env", tap_nccl_env());
    write_vars(f, "nccl_params", tap_nccl_params());
}

static void write_comms(FILE *f)
{
    fputs("  \"comms\": [", f);
    for (unsigned i = 0; i < tap_comm_count(); i++) {
        const struct tap_comm *c = tap_comm_at(i);
        fprintf(f, "%s\n    {\"id\": \"%016llx\", \"parent\": ", i ? "," : "", (unsigned long long)c->id);
        if (c->parent_id)
            fprintf(f, "\"%016llx\"", (unsigned long long)c->parent_id);
        else
            fputs("\"\"", f);
        fputs(", \"name\": ", f);
        json_string(f, c->name);
        fprintf(f, ", \"rank\": %d, \"nranks\": %d, \"device\": %d, \"origin\": \"%s\", \"state\": \"%s\", \"calls\": %llu",
                c->rank, c->nranks, c->device, tap_comm_origin_name(c->origin),
                tap_comm_state_name(atomic_load(&c->state)), (unsigned long long)atomic_load(&c->seq));
        fputs(", \"init_ms\": ", f);
        json_number_or_null(f, (double)c->init_ns * 1e-6, c->init_ns != 0);
        fputs(", \"config\": ", f);
        write_config(f, &c->config);
        fputc('}', f);
    }
    fputs("\n  ],\n", f);
}

/* "entry_points": the calls of each counted entry point that was called
 * (state/entry_events.h), {"calls": N, "failed": M}; absent when none was. */
static void write_entry_events(FILE *f)
{
    bool any = false;
    for (int ev = 0; ev < TAP_EV_COUNT; ev++) {
        uint64_t calls = atomic_load(&tap_entry_counts[ev].calls);
        if (!calls)
            continue;
        fprintf(f, "%s\"%s\": {\"calls\": %llu, \"failed\": %llu}", any ? ", " : ",\n  \"entry_points\": {",
                tap_entry_event_name((enum tap_entry_event)ev), (unsigned long long)calls,
                (unsigned long long)atomic_load(&tap_entry_counts[ev].failed));
        any = true;
    }
    if (any)
        fputc('}', f);
}

/* "steps": the marks of nccltap_step() (state/step_marks.h), {"marked":
 * N, "marks_ns": [kept, oldest first]}; absent when there were none. */
struct marks_out {
    FILE *f;
    bool any;
};

static void write_mark(uint64_t t, void *arg)
{
    struct marks_out *o = arg;
    fprintf(o->f, "%s%llu", o->any ? ", " : "", (unsigned long long)t);
    o->any = true;
}

/* The file written at each interval holds the last TAP_STEP_MARKS_INTERVAL
 * marks, the final one all kept: a reducer formatting 16,384 numbers at
 * every interval falls behind the events it recycles (a job issuing ahead
 * of its GPU then goes untimed); a killed job's report has its last steps. */
#define TAP_STEP_MARKS_INTERVAL 1024

static void write_step_marks(FILE *f, bool final)
{
    uint64_t total = tap_step_marks_total();
    if (!total)
        return;
    struct marks_out o = { f, false };
    fprintf(f, ",\n  \"steps\": {\"marked\": %llu, \"marks_ns\": [", (unsigned long long)total);
    tap_step_marks_each(final ? TAP_STEP_MARKS : TAP_STEP_MARKS_INTERVAL, write_mark, &o);
    fputs("]}", f);
}

static void write_op(FILE *f, const struct tap_stat *s)
{
    char dtype_buf[32];
    double us = 1e-3;
    fprintf(f, "    {\"rank\": %d, \"comm\": \"%016llx\", \"comm_name\": ", s->comm->rank,
            (unsigned long long)s->comm->id);
    json_string(f, s->comm->name);
    fprintf(f, ", \"op\": \"%s\", \"dtype\": \"%s\", \"size_class\": %llu, \"bytes\": %llu, \"bytes_total\": %llu,\n",
            tap_op_name((enum tap_op)s->op), tap_dtype_name(s->dtype, dtype_buf, sizeof dtype_buf),
            s->size_class || s->bytes_total ? 1ull << s->size_class : 0ull,
            (unsigned long long)(s->calls ? s->bytes_total / s->calls : 0),
            (unsigned long long)s->bytes_total);
    fprintf(f, "     \"calls\": %llu, \"timed\": %llu, \"stamped\": %llu, \"grouped\": ",
            (unsigned long long)s->calls, (unsigned long long)s->timed, (unsigned long long)s->stamped);
    json_number(f, s->calls ? (double)s->group_ops / (double)s->calls : 1);
    /* Calls issued into a CUDA graph, and how many times they ran: only in
     * rows that have some, so that other rows read as before. */
    if (s->captured)
        fprintf(f, ", \"captured\": %llu, \"executions\": %llu", (unsigned long long)s->captured,
                (unsigned long long)s->executions);
    /* The first timed call apart; the times over the others ("steady"),
     * null when there are none: no time is not a time of 0. */
    fputs(", \"first_us\": ", f);
    json_number_or_null(f, (double)s->first_ns * us, s->has_first);
    bool timed = s->steady > 0;
    double n = (double)s->steady;
    fprintf(f, ",\n     \"time_ns\": {\"count\": %llu, \"sum\": %llu, \"min\": ", (unsigned long long)s->steady,
            (unsigned long long)s->time_sum_ns);
    json_number_or_null(f, (double)s->time_min_ns, timed);
    fputs(", \"max\": ", f);
    json_number_or_null(f, (double)s->time_max_ns, timed);
    fputs("},\n     \"time_us\": {\"mean\": ", f);
    json_number_or_null(f, (double)s->time_sum_ns / n * us, timed);
    fputs(", \"min\": ", f);
    json_number_or_null(f, (double)s->time_min_ns * us, timed);
    const double q[] = {0.5, 0.9, 0.99};
    const char *qname[] = {"p50", "p90", "p99"};
    for (int i = 0; i < 3; i++) {
        fprintf(f, ", \"%s\": ", qname[i]);
        json_number_or_null(f, tap_stat_quantile_ns(s, q[i]) * us, timed);
    }
    fputs(", \"max\": ", f);
    json_number_or_null(f, (double)s->time_max_ns * us, timed);
    fputs("},\n     \"algbw_gbs\": ", f);
    json_number_or_null(f, s->algbw_sum / n, timed);
    fputs(", \"busbw_gbs\": ", f);
    json_number_or_null(f, s->busbw_sum / n, timed);
    fputs(", \"bw_bytes\": ", f);
    json_number(f, s->bw_bytes);
    fputs(", \"bw_busbytes\": ", f);
    json_number(f, s->bw_busbytes);
    fputs(",\n     \"hist\": [", f);
    bool first = true;
    for (unsigned b = 0; s->hist && b < TAP_HIST_BUCKETS; b++)
        if (s->hist[b]) {
            fprintf(f, "%s[%u, %u]", first ? "" : ", ", b, s->hist[b]);
            first = false;
        }
    fputs("]}", f);
}

static void write_body(FILE *f, const struct tap_snapshot *snap, bool final)
{
    char version[32];
    int code = real_nccl(NULL)->version;
    fprintf(f, "{\n  \"format\": \"nccltap-rank/1\",\n  \"nccltap_version\": \"%s\",\n  \"final\": %s,\n",
            NCCLTAP_VERSION, final ? "true" : "false");
    fputs("  \"host\": ", f);
    json_string(f, tap_process.host);
    fprintf(f, ",\n  \"pid\": %d,\n  \"job\": ", tap_process.pid);
    json_string(f, tap_config.job);
    fprintf(f, ",\n  \"nccl_version\": %d,\n  \"nccl_version_str\": \"%s\",\n  \"nccl_simulated\": %s,\n", code,
            tap_nccl_version_str(code, version, sizeof version), real_nccl(NULL)->simulated ? "true" : "false");
    fprintf(f, "  \"timing\": \"%s\",\n  \"timing_note\": ", tap_timing_mode_name(tap_config.timing));
    json_string(f, tap_config.timing == TAP_TIMING_OFF ? "" : tap_gpu_note());
    fprintf(f, ",\n  \"event_pair_cost_ns\": %llu,\n  \"start_unix_ns\": %llu,\n  \"wall_s\": ",
            (unsigned long long)snap->pair_cost_ns, (unsigned long long)tap_process.start_unix_ns);
    json_number(f, (double)(tap_monotonic_ns() - tap_process.start_mono_ns) * 1e-9);
    /* The time the process had timed NCCL work on the GPU (the union of
     * the intervals) and the sum of their durations: what the report's
     * share of time in NCCL is made of (README, Outputs). */
    fputs(",\n  \"nccl_busy_s\": ", f);
    json_number(f, (double)snap->busy_union_ns * 1e-9);
    fputs(", \"nccl_timed_s\": ", f);
    json_number(f, (double)snap->busy_sum_ns * 1e-9);
    /* The bound on how far its GPU times are off the host's clock: the
     * report adds it to the error of this host's clock offset. */
    fprintf(f, ",\n  \"clock_calibration_error_ns\": %llu,\n", (unsigned long long)snap->clock_calibration_error_ns);
    write_ranks(f);
    write_nccl_env(f);
    write_comms(f);
    tap_callsites_write_json(f);
    tap_os_write_json(f, snap->os);
    fputs("  \"ops\": [", f);
    for (unsigned i = 0; i < tap_stats_count(); i++) {
        fputs(i ? ",\n" : "\n", f);
        write_op(f, tap_stats_at(i));
    }
    const struct tap_reducer_counts *r = &snap->counts;
    struct tap_call_tally t = tap_call_tally(snap);
    /* Allocations that failed (no_memory): their calls are in (overflow)
     * or in rows without their group, not lost. */
    fprintf(f, "\n  ],\n  \"totals\": {\"calls\": %llu, \"dropped\": %llu, \"no_memory\": %llu, "
               "\"timed\": %llu, \"stamped\": %llu, \"untimed\": %llu, "
               "\"captured\": %llu, \"pending\": %llu, \"failed\": %llu, \"simulated\": %llu, \"lost\": %llu, "
               "\"in_flight\": %llu, \"after_exit\": %llu, \"ops_lines_dropped\": %llu",
            (unsigned long long)t.calls, (unsigned long long)t.dropped,
            (unsigned long long)atomic_load(&tap_no_memory),
            (unsigned long long)r->timed, (unsigned long long)r->stamped,
            (unsigned long long)atomic_load(&tap_totals.untimed),
            (unsigned long long)atomic_load(&tap_totals.captured), (unsigned long long)r->pending,
            (unsigned long long)r->failed, (unsigned long long)r->simulated, (unsigned long long)r->lost,
            (unsigned long long)t.in_flight, (unsigned long long)t.after_exit,
            (unsigned long long)tap_ops_log_not_written());
    /* Executions of captured ops (CUDA graphs): timed, and those that were
     * to be timed but are not (no event free, queue full, never completed);
     * only in a process that captured some. */
    /* Communicators past the registry's bound: their calls are in the
     * (overflow) communicator's rows; only when there were some. */
    if (tap_comm_past_limit())
        fprintf(f, ", \"comms_past_limit\": %llu", (unsigned long long)tap_comm_past_limit());
    if (atomic_load(&tap_totals.captured))
        fprintf(f, ", \"executions_timed\": %llu, \"executions_untimed\": %llu, \"graphs_untracked\": %llu",
                (unsigned long long)r->replays_timed,
                (unsigned long long)(r->replays_lost + atomic_load(&tap_graph_untimed)),
                (unsigned long long)atomic_load(&tap_graph_untracked));
    fputs("}", f);
    write_entry_events(f);
    write_step_marks(f, final);
    fputs("\n}\n", f);
}

struct tap_call_tally tap_call_tally(const struct tap_snapshot *snap)
{
    /* Calls not in a row yet: queued for the reducer, or waiting for their
     * group's end or the GPU (the last interval of a killed process holds
     * them), or inside NCCL on another thread at exit. The calls are read
     * last, so that every call is in a row, counted as dropped, failed,
     * simulated or after_exit, or in flight. */
    struct tap_call_tally t = {0};
    uint64_t in_rows = 0;
    for (unsigned i = 0; i < tap_stats_count(); i++)
        in_rows += tap_stats_at(i)->calls;
    t.dropped = atomic_load(&tap_totals.dropped);
    t.after_exit = atomic_load(&tap_totals.after_exit);
    t.calls = tap_comm_total_calls() + t.after_exit;
    uint64_t settled = in_rows + tap_stats_calls_without_row() + t.dropped + t.after_exit + snap->counts.failed +
                       snap->counts.simulated;
    t.in_flight = t.calls > settled ? t.calls - settled : 0;
    return t;
}

int tap_rank_file_write(const struct tap_snapshot *snap, bool final)
{
    int dir = tap_output_dir();
    if (dir < 0)
        return -1; /* said once */
    char name[TAP_OUT_NAME_MAX];
    tap_output_name(name, sizeof name, ".json");
    struct tap_out_file out;
    FILE *f = tap_out_file_begin(&out, dir, name, TAP_OUT_FILE_MODE);
    if (!f) {
        TAP_LOG_ONCE(write_error_said, "cannot write %s (%s)", tap_rank_file_path(), strerror(errno));
        return -1;
    }
    write_body(f, snap, final);
    long size = ftell(f);
    if (tap_out_file_commit(&out) != 0) {
        TAP_LOG_ONCE(write_error_said, "cannot write %s (%s)%s", tap_rank_file_path(), strerror(errno),
                     tap_rank_file_written() ? "; the previous version is kept" : "");
        return -1;
    }
    if (size > 0)
        tap_output_keep_room_for((uint64_t)size);
    atomic_store(&written, true);
    return 0;
}

void tap_print_summary(const struct tap_snapshot *snap)
{
    bool rank0 = false;
    unsigned n = tap_comm_count();
    for (unsigned i = 0; i < n; i++)
        rank0 |= is_root(tap_comm_at(i)) && tap_comm_at(i)->rank == 0;
    if (!rank0 && !tap_config.verbose)
        return;
    const struct tap_reducer_counts *r = &snap->counts;
    uint64_t dropped = atomic_load(&tap_totals.dropped);
    /* Per-op lines past NCCLTAP_OPS_MAX_MB: the log is not the whole run. */
    char lines[96] = "";
    uint64_t not_written = tap_ops_log_not_written();
    if (not_written)
        snprintf(lines, sizeof lines, ", %llu per-op lines %s not written", (unsigned long long)not_written,
                 tap_ops_log_out_of_room() ? "past the room kept for the rank file" : "past NCCLTAP_OPS_MAX_MB");
    struct tap_call_tally t = tap_call_tally(snap);
    char after[64] = "";
    if (t.after_exit)
        snprintf(after, sizeof after, " (%llu after exit began, not recorded)", (unsigned long long)t.after_exit);
    char stamped[48] = "";
    if (r->stamped)
        snprintf(stamped, sizeof stamped, ", %llu stamped", (unsigned long long)r->stamped);
    tap_log("%llu NCCL calls%s on %u communicator%s%s, %llu timed%s%s%s%s%s", (unsigned long long)t.calls, after, n,
            n == 1 ? "" : "s", stamped, (unsigned long long)r->timed, dropped ? ", RECORDS DROPPED: " : "",
            dropped ? "see totals.dropped" : "", lines,
            tap_rank_file_written() ? "; output in " : ", no output written",
            tap_rank_file_written() ? tap_rank_file_path() : "");
}
