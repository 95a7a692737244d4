/* The per-op log of one process (NCCLTAP_OPS_JSONL: one JSON object per
 * line, one line per timed op) into the document's op events. */
#include "load.h"
#include "input_file.h"
#include "input_limits.h"
#include "record_check.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_event(const void *a, const void *b)
{
    const struct op_event *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return (op_replay(x) > op_replay(y)) - (op_replay(x) < op_replay(y));
}

void report_sort_events(struct rank_file *f)
{
    if (f->nevents)
        qsort(f->events, f->nevents, sizeof *f->events, cmp_event);
    rank_file_sort_tags(f);
}

static uint64_t u64(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* An integer that fits 32 bits signed; INT32_MIN (out of every range:
 * report_check_events rejects it) for one that does not, rather than its
 * low 32 bits, which may look like a valid rank. */
static int32_t i32(json_t *v)
{
    json_int_t x = json_integer_value(v);
    return x >= INT32_MIN && x <= INT32_MAX ? (int32_t)x : INT32_MIN;
}

/* A hex string ("00ab..." or "0x7f..."), as ids and handles are written. */
static bool hex(json_t *o, const char *key, uint64_t *out)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    *out = strtoull(s, &end, 16);
    return !errno && !*end;
}

/* One line into *e; false when it lacks what a record needs. An
 * execution of a captured call ("replay" N > 0) is read as one: the rank
 * file counts them in its rows, these are its times. */
static bool parse_line(struct report *r, struct rank_file *f, const char *line, struct op_event *e)
{
    json_t *o = json_loads(line, 0, NULL);
    if (!json_is_object(o)) {
        json_decref(o);
        return false;
    }
    const char *op = json_string_value(json_object_get(o, "op"));
    const char *dtype = json_string_value(json_object_get(o, "dtype"));
    json_t *rank = json_object_get(o, "rank"), *seq = json_object_get(o, "seq");
    bool ok = op && dtype && json_is_integer(rank) && json_is_integer(seq) &&
              hex(o, "comm", &e->comm) && op_set_group_replay(e, u64(o, "group"), u64(o, "replay"));
    if (ok) {
        e->seq = (uint64_t)json_integer_value(seq);
        e->rank = i32(rank);
        json_t *peer = json_object_get(o, "peer");
        e->peer = json_is_integer(peer) ? i32(peer) : -1;
        e->op = report_name_index(r, op);
        e->dtype = report_name_index(r, dtype);
        json_t *redop = json_object_get(o, "redop");  /* absent: an older shim's line */
        e->redop = !redop ? OP_REDOP_UNKNOWN : json_is_null(redop) ? OP_REDOP_NONE
                 : json_is_string(redop) ? op_redop_from_name(json_string_value(redop)) : OP_REDOP_UNKNOWN;
        e->bytes = u64(o, "bytes");
        uint64_t gops = u64(o, "group_ops");
        e->group_ops = gops > UINT16_MAX ? UINT16_MAX : (uint16_t)gops;
        if (!e->group_ops)
            e->group_ops = 1;
        e->tid = (uint32_t)u64(o, "tid");
        uint64_t stream = 0;
        if (!hex(o, "stream", &stream))
            stream = 0;
        e->stream = rank_file_stream(f, stream);
        if (json_is_true(json_object_get(o, "stamped"))) {
            e->flags = OP_STAMPED | (json_is_true(json_object_get(o, "start_at_call")) ? OP_START_AT_CALL : 0);
            e->start_span_us = op_span_us(u64(o, "start_span_ns"));
            e->end_span_us = op_span_us(u64(o, "end_span_ns"));
        }
        e->enqueue_ns = u64(o, "enqueue_ns");
        e->start_ns = u64(o, "start_ns");
        e->end_ns = u64(o, "end_ns");
        uint64_t tag = 0;  /* hex, as ids are: a tag may use all 64 bits */
        if (hex(o, "tag", &tag))  /* absent: an older shim's line, no tag */
            rank_file_add_tag(f, e->comm, e->rank, e->seq, tag);
    }
    json_decref(o);
    return ok;
}

void report_load_ops_log(struct report *r, struct rank_file *f, const char *path)
{
    char why[128];
    int fd = input_open(path, REPORT_MAX_OPS_FILE_BYTES, why, sizeof why);
    if (fd < 0) {
        if (errno != ENOENT)
            msg("skipping %s: %s", path, why);
        return;
    }
    FILE *in = fdopen(fd, "r");
    if (!in) {
        close(fd);
        return;
    }
    size_t cap = 0, bad = 0, lineno = 0, first_bad = 0;
    char *line = NULL;
    size_t len = 0;
    while (getline(&line, &len, in) > 0) {
        lineno++;
        if (f->nevents == cap)
            f->events = xrealloc(f->events, (cap = cap ? 2 * cap : 256) * sizeof *f->events);
        struct op_event *e = &f->events[f->nevents];
        memset(e, 0, sizeof *e);
        if (parse_line(r, f, line, e))
            f->nevents++;
        else if (bad++ == 0)
            first_bad = lineno;
    }
    free(line);
    fclose(in);
    if (bad)
        msg("%s: %zu line%s not read (the first is line %zu): not a per-op record",
            path, bad, bad == 1 ? "" : "s", first_bad);
    report_check_events(r, f, path);
    report_sort_events(f);
}
