#include "writers/ops_log.h"

#include <stdio.h>

#include "state/comm_registry.h"
#include "base/config.h"
#include "writers/inspector_log.h"
#include "writers/line_log.h"
#include "writers/ops_bound.h"

static struct tap_line_log ops_log;

/* The op's reduction as JSON: its name quoted (nccl_ops.h; a user op by
 * its slot in its communicator), null for an op without one. */
static const char *redop_json(const struct tap_op_rec *op, char *buf, size_t len)
{
    char name[24];
    if (op->redop < 0)
        return "null";
    snprintf(buf, len, "\"%s\"", tap_redop_name(op->redop, op->comm->handle, name, sizeof name));
    return buf;
}

/* nccltap's own line (NCCLTAP_OPS_JSONL=1). Returns its length, 0 if it
 * did not fit. */
static size_t nccltap_line(char *line, size_t cap, const struct tap_completion *c)
{
    const struct tap_op_rec *op = c->op;
    char dtype[32], redop[32];
    int n = snprintf(line, cap,
                     "{\"rank\": %d, \"comm\": \"%016llx\", \"seq\": %llu, \"op\": \"%s\", \"dtype\": \"%s\", "
                     "\"count\": %llu, \"bytes\": %llu, \"redop\": %s, \"peer\": %d, \"group\": %llu, \"group_ops\": %u, "
                     "\"stream\": \"%p\", \"tid\": %u, \"enqueue_ns\": %llu, \"start_ns\": %llu, \"end_ns\": %llu, "
                     "\"duration_ns\": %llu, \"busbw_gbs\": %.6g, \"replay\": %llu, \"stamped\": %s, \"joined\": %s, \"start_at_call\": %s, "
                     "\"start_span_ns\": %llu, \"end_span_ns\": %llu, \"polled_start_ns\": %llu, "
                     "\"polled_end_ns\": %llu, \"tag\": \"%llx\"}\n",
                     op->comm->rank, (unsigned long long)op->comm->id, (unsigned long long)op->seq,
                     tap_op_name((enum tap_op)op->op), tap_dtype_name(op->dtype, dtype, sizeof dtype),
                     (unsigned long long)op->count, (unsigned long long)op->bytes, redop_json(op, redop, sizeof redop), op->peer,
                     (unsigned long long)op->group_id, c->group_ops, op->stream, op->tid,
                     (unsigned long long)op->enqueue_ns, (unsigned long long)c->start_ns,
                     (unsigned long long)c->end_ns, (unsigned long long)c->duration_ns, c->busbw_gbs,
                     (unsigned long long)tap_op_replay(op), c->stamped ? "true" : "false",
                     op->flags & TAP_OPF_JOINED ? "true" : "false", c->stamped && c->start_at_call ? "true" : "false",
                     (unsigned long long)c->start_span_ns, (unsigned long long)c->end_span_ns,
                     (unsigned long long)c->polled_start_ns, (unsigned long long)c->polled_end_ns,
                     (unsigned long long)tap_op_user_tag(op));
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

void tap_ops_log_write(const struct tap_completion *c)
{
    if (!tap_config.ops_jsonl)
        return;
    bool inspector = tap_config.ops_jsonl == TAP_OPS_JSONL_INSPECTOR;
    if (inspector && c->stamped)
        return; /* Inspector's records are kernel times: the timed ops only */
    if (!ops_log.suffix)
        tap_line_log_init(&ops_log, inspector ? ".inspector.jsonl" : ".ops.jsonl",
                          tap_ops_max_bytes());
    if (tap_line_log_skip_if_full(&ops_log))
        return; /* past NCCLTAP_OPS_MAX_MB: counted, not formatted */
    char line[TAP_INSPECTOR_LINE_MAX];
    size_t n = inspector ? tap_inspector_line(line, sizeof line, c) : nccltap_line(line, sizeof line, c);
    tap_line_log_put(&ops_log, line, n);
}

void tap_ops_log_flush(void)
{
    if (ops_log.suffix)
        tap_line_log_flush(&ops_log);
}

uint64_t tap_ops_log_not_written(void)
{
    return ops_log.suffix ? ops_log.not_written : 0;
}

bool tap_ops_log_out_of_room(void)
{
    return ops_log.suffix && ops_log.no_room;
}

void tap_ops_log_reset(void)
{
    if (ops_log.suffix)
        tap_line_log_reset(&ops_log);
}
