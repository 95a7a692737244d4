/* Hang reports: nccltap-<run>@<host>-<pid>.hang.json, written by the shim's
 * watchdog (README, Outputs) next to the process's rank file, into
 * r->hangs. */
#include "load.h"
#include "input_file.h"
#include "input_limits.h"
#include "record_check.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

static uint64_t u64(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* An int; -1 (out of every range: hang_comm_invalid rejects it) for one
 * that does not fit, rather than its low bits. */
static int int_of(json_t *v)
{
    json_int_t x = json_integer_value(v);
    return x >= INT_MIN && x <= INT_MAX ? (int)x : -1;
}

/* The waiting ops of a burst between marks (the first HANG_BETWEEN_MAX;
 * an entry that is not an object with a seq is left out). */
static void load_between(struct report *r, json_t *a, struct hang_comm *c)
{
    size_t i, n = json_array_size(a);
    json_t *b;
    if (!n)
        return;
    c->between = xcalloc(n < HANG_BETWEEN_MAX ? n : HANG_BETWEEN_MAX, sizeof *c->between);
    json_array_foreach(a, i, b) {
        if (c->nbetween == HANG_BETWEEN_MAX)
            break;
        if (!json_is_integer(json_object_get(b, "seq")))
            continue;
        const char *op = json_string_value(json_object_get(b, "op"));
        const char *dtype = json_string_value(json_object_get(b, "dtype"));
        json_t *redop = json_object_get(b, "redop"), *root = json_object_get(b, "root");
        c->between[c->nbetween++] = (struct hang_call_at){
            .seq = u64(b, "seq"),
            .bytes = u64(b, "bytes"),
            .op = report_intern(r, op ? op : "unknown"),
            .dtype = report_intern(r, dtype ? dtype : ""),
            .redop = json_is_integer(redop) ? op_redop_of(json_integer_value(redop)) : OP_REDOP_UNKNOWN,
            .root = json_is_integer(root) ? int_of(root) : -1,
        };
    }
}

static bool load_comm(struct report *r, json_t *o, struct hang_comm *c)
{
    *c = (struct hang_comm){ 0 };  /* the slot of an entry left out before it is reused */
    const char *id = json_string_value(json_object_get(o, "comm"));
    json_t *rank = json_object_get(o, "rank"), *nranks = json_object_get(o, "nranks");
    if (!id || !json_is_integer(rank) || !json_is_integer(nranks))
        return false;
    char *end;
    errno = 0;
    c->comm = strtoull(id, &end, 16);
    if (errno || *end)
        return false;
    c->rank = int_of(rank);
    c->nranks = int_of(nranks);
    c->issued = u64(o, "issued");
    json_t *done = json_object_get(o, "last_done");
    c->last_done = json_is_integer(done) ? (int64_t)json_integer_value(done) : -1;
    json_t *p = json_object_get(o, "pending");
    c->pending = json_is_object(p);
    if (c->pending) {
        const char *op = json_string_value(json_object_get(p, "op"));
        c->seq = u64(p, "seq");
        c->bytes = u64(p, "bytes");
        c->op = report_intern(r, op ? op : "unknown");
        const char *dtype = json_string_value(json_object_get(p, "dtype"));  /* absent: an older shim */
        c->dtype = report_intern(r, dtype ? dtype : "");
        json_t *redop = json_object_get(p, "redop"), *root = json_object_get(p, "root");
        c->redop = json_is_integer(redop) ? op_redop_of(json_integer_value(redop)) : OP_REDOP_UNKNOWN;
        c->root = json_is_integer(root) ? int_of(root) : -1;
        c->started = json_is_true(json_object_get(p, "started"));
        c->untimed = json_is_false(json_object_get(p, "timed"));  /* absent: timed */
        c->pending_s = json_number_value(json_object_get(p, "pending_s"));
        c->site = (unsigned)u64(p, "site");
    }
    load_between(r, json_object_get(o, "between"), c);  /* absent: an older shim */
    return true;
}

static void load_one(struct report *r, size_t file, const char *path)
{
    char why[128];
    int fd = input_open(path, REPORT_MAX_DOC_BYTES, why, sizeof why);
    if (fd < 0) {
        if (errno != ENOENT)
            msg("%s: %s: its hang report is not read", path, why);
        return;
    }
    json_error_t err;
    json_t *root = json_loadfd(fd, 0, &err);
    close(fd);
    if (!root) {
        msg("%s: %s: its hang report is not read", path, err.text);
        return;
    }
    json_t *comms = json_object_get(root, "comms");
    const char *format = json_string_value(json_object_get(root, "format"));
    if (!format || strcmp(format, "nccltap-hang/1") != 0 || !json_is_array(comms)) {
        msg("%s: not a hang report of this nccltap (format nccltap-hang/1)", path);
        json_decref(root);
        return;
    }
    struct hang_file h = { .file = file, .reports = (unsigned)u64(root, "reports") };
    h.comms = xcalloc(json_array_size(comms) + 1, sizeof *h.comms);
    size_t i, rejected = 0;
    const char *first = NULL;
    json_t *c;
    json_array_foreach(comms, i, c) {
        if (!load_comm(r, c, &h.comms[h.ncomms])) {
            msg("%s: comms[%zu] lacks comm, rank or nranks: left out", path, i);
            continue;
        }
        const char *bad = hang_comm_invalid(&h.comms[h.ncomms]);
        if (!bad) {
            h.ncomms++;
            continue;
        }
        free(h.comms[h.ncomms].between);
        if (rejected++ == 0)
            first = bad;
    }
    report_rejected(r, path, rejected, "hang entry", first);
    json_decref(root);
    r->hangs = xrealloc(r->hangs, (r->nhangs + 1) * sizeof *r->hangs);
    r->hangs[r->nhangs++] = h;
}

void report_load_hangs(struct report *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        const char *p = r->files[i].path;
        size_t n = strlen(p);
        if (n < 5 || strcmp(p + n - 5, ".json") != 0)
            continue;
        char *path = xasprintf("%.*s" HANG_FILE_SUFFIX, (int)(n - 5), p);
        load_one(r, i, path);
        free(path);
    }
}

void report_hangs_free(struct report *r)
{
    for (size_t i = 0; i < r->nhangs; i++) {
        for (size_t k = 0; k < r->hangs[i].ncomms; k++)
            free(r->hangs[i].comms[k].between);
        free(r->hangs[i].comms);
    }
    free(r->hangs);
    r->hangs = NULL;
    r->nhangs = 0;
}
