/* Streaming a per-rank document into the model (rank_parse.h). yajl calls
 * back for each token; a small stack of frames says where in the document
 * the token is (the file, an object inside it such as "totals", an element
 * of "comms" or "ops", "ranks", a histogram), and each field is found in
 * the table of its part and stored in place. Unknown fields are skipped
 * whatever they hold, so that newer shims' files stay readable. */
#include "rank_parse.h"
#include "json_fields.h"
#include "rank_fill.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#define FORMAT_NAME "nccltap-rank/"
#define FORMAT_MAJOR "1"

/* ---- what each part of a file holds ---- */

static const struct field file_fields[] = {
    OPT("final", K_BOOL, struct rank_file, final),
    F("host", K_STR, struct rank_file, host),
    F("pid", K_LL, struct rank_file, pid),
    OPT("job", K_STR, struct rank_file, job),
    OPT("nccl_version_str", K_STR, struct rank_file, nccl_version),
    OPT("nccl_simulated", K_BOOL, struct rank_file, nccl_simulated),
    OPT("timing", K_STR, struct rank_file, timing),
    OPT("timing_note", K_STR, struct rank_file, timing_note),
    OPT("wall_s", K_NUM, struct rank_file, wall_s),
    NUL("nccl_busy_s", K_NUM, struct rank_file, nccl_busy_s),
    NUL("nccl_timed_s", K_NUM, struct rank_file, nccl_timed_s),
    NUL("clock_calibration_error_ns", K_NUM, struct rank_file, clock_calibration_error_ns),
    F("totals.calls", K_U64, struct rank_file, totals.calls),
    F("totals.dropped", K_U64, struct rank_file, totals.dropped),
    F("totals.timed", K_U64, struct rank_file, totals.timed),
    OPT("totals.stamped", K_U64, struct rank_file, totals.stamped),
    F("totals.untimed", K_U64, struct rank_file, totals.untimed),
    F("totals.captured", K_U64, struct rank_file, totals.captured),
    F("totals.pending", K_U64, struct rank_file, totals.pending),
    F("totals.failed", K_U64, struct rank_file, totals.failed),
    OPT("totals.lost", K_U64, struct rank_file, totals.lost),
    OPT("totals.simulated", K_U64, struct rank_file, totals.simulated),
    OPT("totals.ops_lines_dropped", K_U64, struct rank_file, totals.ops_lines_dropped),
    OPT("totals.in_flight", K_U64, struct rank_file, totals.in_flight),
    OPT("totals.no_memory", K_U64, struct rank_file, totals.no_memory),
    OPT("totals.after_exit", K_U64, struct rank_file, totals.after_exit),
    OPT("totals.comms_past_limit", K_U64, struct rank_file, totals.comms_past_limit),
    OPT("totals.graphs_untracked", K_U64, struct rank_file, totals.graphs_untracked),
};

static const struct field comm_fields[] = {
    F("id", K_STR, struct comm_entry, id),
    OPT("parent", K_STR, struct comm_entry, parent),
    OPT("name", K_STR, struct comm_entry, name),
    F("rank", K_INT, struct comm_entry, rank),
    F("nranks", K_INT, struct comm_entry, nranks),
    OPT("origin", K_STR, struct comm_entry, origin),
    OPT("state", K_STR, struct comm_entry, state),
    NUL("init_ms", K_NUM, struct comm_entry, init_ms),
    OPT("calls", K_U64, struct comm_entry, calls),
    /* "config": null, or the fields below (null: unset). */
    OPT("config.version", K_INT, struct comm_entry, config.version),
    NUL("config.blocking", K_INT, struct comm_entry, config.blocking),
    NUL("config.cga_cluster_size", K_INT, struct comm_entry, config.cga_cluster_size),
    NUL("config.min_ctas", K_INT, struct comm_entry, config.min_ctas),
    NUL("config.max_ctas", K_INT, struct comm_entry, config.max_ctas),
    NUL("config.split_share", K_INT, struct comm_entry, config.split_share),
    NUL("config.traffic_class", K_INT, struct comm_entry, config.traffic_class),
    NUL("config.net_name", K_STR, struct comm_entry, config.net_name),
};

static const struct field op_fields[] = {
    F("rank", K_INT, struct op_row, rank),
    F("comm", K_STR, struct op_row, comm),
    OPT("comm_name", K_STR, struct op_row, comm_name),
    F("op", K_STR, struct op_row, op),
    F("dtype", K_STR, struct op_row, dtype),
    F("size_class", K_U64, struct op_row, size_class),
    F("bytes", K_NUM, struct op_row, bytes),
    F("bytes_total", K_U64, struct op_row, bytes_total),
    F("calls", K_U64, struct op_row, calls),
    F("timed", K_U64, struct op_row, timed),
    OPT("stamped", K_U64, struct op_row, stamped),
    OPT("grouped", K_NUM, struct op_row, grouped),
    OPT("captured", K_U64, struct op_row, captured),
    OPT("executions", K_U64, struct op_row, executions),
    /* Times and bandwidths are null in a row with no timed call but the
     * first (kept apart as first_us); files before first_us had neither
     * nulls nor "count" (then every timed call is in the times). */
    NUL("first_us", K_NUM, struct op_row, first_us),
    OPT("time_ns.count", K_U64, struct op_row, t_count),
    F("time_ns.sum", K_U64, struct op_row, t_sum),
    NUL("time_ns.min", K_U64, struct op_row, t_min),
    NUL("time_ns.max", K_U64, struct op_row, t_max),
    NUL("time_us.mean", K_NUM, struct op_row, us_mean),
    NUL("time_us.min", K_NUM, struct op_row, us_min),
    NUL("time_us.p50", K_NUM, struct op_row, us_p50),
    NUL("time_us.p90", K_NUM, struct op_row, us_p90),
    NUL("time_us.p99", K_NUM, struct op_row, us_p99),
    NUL("time_us.max", K_NUM, struct op_row, us_max),
    NUL("algbw_gbs", K_NUM, struct op_row, algbw_gbs),
    NUL("busbw_gbs", K_NUM, struct op_row, busbw_gbs),
    F("bw_bytes", K_NUM, struct op_row, bw_bytes),
    F("bw_busbytes", K_NUM, struct op_row, bw_busbytes),
};

static void *new_comm(struct rank_fill *w)
{
    return rank_fill_comm(w);
}

static void *new_row(struct rank_fill *w)
{
    return rank_fill_row(w);
}

/* The arrays of objects at the top of a file; a new one is a line here
 * (and a table above). Their elements, defaults and checks are the fill's
 * (rank_fill.h), as for every reader of a process. */
struct section {
    const char *key;
    const struct field *fields;
    size_t nfields;
    void *(*add)(struct rank_fill *w);    /* a new element, with its defaults */
    void (*check)(struct rank_fill *w);   /* once read: left out when out of range */
    bool hist;                  /* elements may have "hist": [[bucket, count], ...] */
};

static const struct section sections[] = {
    { "comms", comm_fields, NFIELDS(comm_fields), new_comm, rank_fill_comm_check, false },
    { "ops", op_fields, NFIELDS(op_fields), new_row, rank_fill_row_check, true },
};
#define NSECTIONS (sizeof sections / sizeof sections[0])

/* Top-level members that loaders of their own read with jansson
 * (callsite_load.c, os_records.c, nccl_env.c, step_marks_load.c;
 * rank_fill_kept() hands them over, as it does a trace's): they are built
 * as JSON while the rest streams. They are small (a few dozen call sites a
 * process; "os" at most the shim's 16,384 intervals, "steps" its 16,384
 * marks). */
static const char *const kept_keys[] = { "callsite_depth", "callsite_python_unread", "callsites", "modules", "os",
                                         "nccl_env", "nccl_params", "steps", "entry_points" };
#define NKEPT (sizeof kept_keys / sizeof kept_keys[0])
#define MAX_KEPT_DEPTH 16

/* ---- the parser ---- */

enum frame_kind {
    FR_FILE,   /* the document's object: file_fields */
    FR_INNER,  /* an object one level into a table's object ("totals", "time_ns") */
    FR_LIST,   /* a section's array */
    FR_ELEM,   /* one element of a section */
    FR_RANKS,  /* "ranks": integers */
    FR_HIST,   /* an op's "hist" */
    FR_BIN,    /* one [bucket, count] */
};

struct frame {
    enum frame_kind kind;
    const struct field *fields;  /* FR_FILE, FR_ELEM: the table */
    size_t nfields;
    void *dst;                   /* ... and what it fills */
    uint64_t seen;               /* ... and which of its fields were there */
    size_t hint;                 /* the field after the last one found: files list them in order */
    const struct section *section;  /* FR_LIST, FR_ELEM */
    size_t index;                /* FR_LIST, FR_RANKS, FR_HIST: elements so far; FR_BIN: values */
    char outer[32];              /* FR_INNER: its key */
    size_t outer_len;
};

/* Frames nest at most file > list > element > hist > bin. */
#define MAX_FRAMES 6

struct rank_parser {
    struct report *r;
    struct rank_file *f;
    struct rank_fill fill;     /* what the file's entries go through */
    yajl_handle yajl;
    struct frame stack[MAX_FRAMES];
    int top;                   /* frames in use */
    size_t skip;               /* > 0 inside a value that is ignored: its depth */
    char key[64];              /* the last object key, while its value comes */
    size_t key_len;            /* SIZE_MAX: too long to be any field's */
    bool root_seen, format_seen;
    bool ranks_seen, section_seen[NSECTIONS];
    struct hist_bin *bins;     /* the histogram being read */
    size_t nbins, bins_cap;
    json_t *kept;              /* the members of kept_keys that the file has */
    json_t *build[MAX_KEPT_DEPTH];  /* the containers of the kept member being read */
    char build_key[MAX_KEPT_DEPTH][64];  /* an object's key, while its value comes */
    int nbuild;                /* 0: none being read */
    size_t line, column;       /* where the input read so far ends, from 1 */
    bool failed;
    char why[256];
};

enum token { T_NULL, T_BOOL, T_NUM, T_STR };

static const char *token_name(enum token t)
{
    static const char *const names[] = { "null", "a boolean", "a number", "a string" };
    return names[t];
}

/* Records the first error. Stops the parse once the document is known to be
 * a per-rank file; before, reading on may find that it is not one (a
 * message about the format says more than one about a field). */
static int fail(struct rank_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct rank_parser *p, const char *fmt, ...)
{
    if (!p->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->why, sizeof p->why, fmt, ap);
        va_end(ap);
        p->failed = true;
    }
    return p->format_seen ? 0 : 1;
}

/* The innermost frame with a field table, and the key prefix ("totals")
 * that its fields are looked up under. */
static struct frame *table_frame(struct rank_parser *p, const char **outer, size_t *outer_len)
{
    struct frame *fr = &p->stack[p->top - 1];
    *outer = "";
    *outer_len = 0;
    if (fr->kind == FR_INNER) {
        *outer = fr->outer;
        *outer_len = fr->outer_len;
        fr--;
    }
    return fr->kind == FR_FILE || fr->kind == FR_ELEM ? fr : NULL;
}

static bool path_is(const char *path, const char *outer, size_t olen, const char *key, size_t klen)
{
    if (olen) {
        if (strncmp(path, outer, olen) != 0 || path[olen] != '.')
            return false;
        path += olen + 1;
    } else if (memchr(key, '.', klen)) {
        return false;  /* "totals.calls" is a path, never a key */
    }
    return strlen(path) == klen && memcmp(path, key, klen) == 0;
}

/* The field the current key names in `t`, or NULL. */
static const struct field *find_field(struct rank_parser *p, struct frame *t, const char *outer,
                                      size_t olen)
{
    if (p->key_len == SIZE_MAX)
        return NULL;
    for (size_t k = 0; k < t->nfields; k++) {
        size_t i = (t->hint + k) % t->nfields;
        if (path_is(t->fields[i].path, outer, olen, p->key, p->key_len)) {
            t->hint = i + 1;
            return &t->fields[i];
        }
    }
    return NULL;
}

/* True when some field of `t` is under the current key ("totals."); looked
 * for from the hint, as fields are. */
static bool is_prefix(struct rank_parser *p, const struct frame *t)
{
    if (p->key_len == SIZE_MAX || p->key_len >= sizeof p->stack[0].outer)
        return false;
    for (size_t k = 0; k < t->nfields; k++) {
        const char *path = t->fields[(t->hint + k) % t->nfields].path;
        if (path[0] == p->key[0] && strncmp(path, p->key, p->key_len) == 0 &&
            path[p->key_len] == '.')
            return true;
    }
    return false;
}

static bool key_is(const struct rank_parser *p, const char *name)
{
    return p->key_len == strlen(name) && memcmp(p->key, name, p->key_len) == 0;
}

static const struct section *section_named(const struct rank_parser *p)
{
    for (size_t i = 0; i < NSECTIONS; i++)
        if (key_is(p, sections[i].key))
            return &sections[i];
    return NULL;
}

/* "\"ops\"[3]: " when inside an element, "" otherwise. */
static const char *where(const struct rank_parser *p, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < p->top; i++)
        if (p->stack[i].kind == FR_LIST)
            snprintf(buf, len, "\"%s\"[%zu]: ", p->stack[i].section->key,
                     p->stack[i].index ? p->stack[i].index - 1 : 0);
    return buf;
}

static struct frame *push(struct rank_parser *p, enum frame_kind kind)
{
    struct frame *fr = &p->stack[p->top++];
    memset(fr, 0, sizeof *fr);
    fr->kind = kind;
    return fr;
}

/* An integer as JSON spells one ("-12"), without strtoll's locale and
 * copy: the histograms alone are tens of millions of them. False for a
 * fraction, an exponent or a value beyond long long. */
static bool parse_ll(const char *s, size_t len, long long *out)
{
    bool neg = len > 0 && s[0] == '-';
    size_t i = neg;
    if (i == len)
        return false;
    unsigned long long v = 0;
    for (; i < len; i++) {
        unsigned d = (unsigned)((unsigned char)s[i] - '0');
        if (d > 9 || v > (ULLONG_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (v > (unsigned long long)LLONG_MAX + neg)
        return false;
    *out = neg && v ? -(long long)(v - 1) - 1 : (long long)v;
    return true;
}

static bool parse_double(const char *s, size_t len, double *out)
{
    long long ll;
    if (parse_ll(s, len, &ll)) {
        *out = (double)ll;
        return true;
    }
    char buf[64];
    if (len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    *out = strtod(buf, NULL);
    return true;
}

/* Stores one value into the field `fd` of table frame t. */
static int store(struct rank_parser *p, struct frame *t, const struct field *fd, enum token tok,
                 const char *s, size_t len)
{
    void *dst = (char *)t->dst + fd->offset;
    long long ll = 0;
    bool ok;
    if (tok == T_NULL && fd->nullable) {  /* the default stays */
        t->seen |= 1ull << (fd - t->fields);
        return 1;
    }
    switch (fd->kind) {
    case K_INT:
        ok = tok == T_NUM && parse_ll(s, len, &ll) && ll >= INT_MIN && ll <= INT_MAX;
        if (ok)
            *(int *)dst = (int)ll;
        break;
    case K_LL:
        ok = tok == T_NUM && parse_ll(s, len, &ll);
        if (ok)
            *(long long *)dst = ll;
        break;
    case K_U64:
        ok = tok == T_NUM && parse_ll(s, len, &ll) && ll >= 0;
        if (ok)
            *(uint64_t *)dst = (uint64_t)ll;
        break;
    case K_NUM:
        ok = tok == T_NUM && parse_double(s, len, (double *)dst);
        break;
    case K_STR:
        ok = tok == T_STR;
        if (ok)
            *(const char **)dst = report_intern_n(p->r, s, len);
        break;
    case K_BOOL:
        ok = tok == T_BOOL;
        if (ok)
            *(bool *)dst = len != 0;
        break;
    default:
        ok = false;
    }
    if (!ok) {
        char at[64];
        return fail(p, "%s\"%s\" is not %s", where(p, at, sizeof at), fd->path,
                    json_kind_name(fd->kind));
    }
    t->seen |= 1ull << (fd - t->fields);
    return 1;
}

/* "1" and "1.x" are this major version: minor versions only add fields. */
static bool format_supported(const char *format, size_t len)
{
    size_t n = strlen(FORMAT_NAME), m = strlen(FORMAT_MAJOR);
    return len >= n + m && memcmp(format, FORMAT_NAME, n) == 0 &&
           memcmp(format + n, FORMAT_MAJOR, m) == 0 && (len == n + m || format[n + m] == '.');
}

static int check_format(struct rank_parser *p, enum token tok, const char *s, size_t len)
{
    if (tok != T_STR)
        return 1;  /* not ours: finish() says there is no format */
    if (!format_supported(s, len)) {
        /* Named in the message, so only as printable ASCII. */
        char shown[40];
        size_t n = 0;
        for (; n < len && n + 1 < sizeof shown; n++)
            shown[n] = s[n] >= 0x20 && s[n] < 0x7f ? s[n] : '?';
        shown[n] = '\0';
        p->failed = false;  /* this says more than any error before it */
        fail(p, "format \"%s%s\" is not supported (this nccltap reads %s%s)", shown,
             n < len ? "..." : "", FORMAT_NAME, FORMAT_MAJOR);
        p->format_seen = true;
        return 0;
    }
    p->format_seen = true;
    return p->failed ? 0 : 1;
}

static int on_bin_value(struct rank_parser *p, enum token tok, const char *s, size_t len)
{
    struct frame *fr = &p->stack[p->top - 1];
    struct frame *hist = fr - 1;
    long long v;
    bool ok = tok == T_NUM && parse_ll(s, len, &v) && fr->index < 2 &&
              (fr->index == 0 ? v >= 0 && v < REPORT_HIST_BUCKETS : v >= 0 && v <= UINT32_MAX);
    if (!ok) {
        char at[64];
        return fail(p, "%s\"hist\"[%zu] is not [bucket, count] (bucket 0..%d, a 32-bit count)",
                    where(p, at, sizeof at), hist->index - 1, REPORT_HIST_BUCKETS - 1);
    }
    struct hist_bin *bin = &p->bins[p->nbins - 1];
    if (fr->index++ == 0)
        bin->bucket = (int32_t)v;
    else
        bin->count = (uint32_t)v;
    return 1;
}

/* ---- members kept as JSON ---- */

static bool kept_key(const struct rank_parser *p)
{
    for (size_t i = 0; i < NKEPT; i++)
        if (key_is(p, kept_keys[i]))
            return true;
    return false;
}

/* True when the token belongs to a kept member: one being read, or one
 * that starts here. */
static bool keeping(const struct rank_parser *p)
{
    return p->nbuild > 0 ||
           (p->top > 0 && p->stack[p->top - 1].kind == FR_FILE && kept_key(p));
}

/* Adds v to the container being built, or as a kept member. */
static int kept_add(struct rank_parser *p, json_t *v)
{
    if (!v)
        return fail(p, "out of memory");
    if (p->nbuild == 0)
        json_object_set_new(p->kept, p->key, v);
    else if (json_is_array(p->build[p->nbuild - 1]))
        json_array_append_new(p->build[p->nbuild - 1], v);
    else
        json_object_set_new(p->build[p->nbuild - 1], p->build_key[p->nbuild - 1], v);
    return 1;
}

static int kept_value(struct rank_parser *p, enum token tok, const char *s, size_t len)
{
    long long ll;
    double d;
    switch (tok) {
    case T_NULL:
        return kept_add(p, json_null());
    case T_BOOL:
        return kept_add(p, json_boolean(len != 0));
    case T_NUM:
        if (parse_ll(s, len, &ll))
            return kept_add(p, json_integer(ll));
        if (parse_double(s, len, &d))
            return kept_add(p, json_real(d));
        return fail(p, "\"%s\": a number too long to read", p->nbuild ? "..." : p->key);
    case T_STR:
        return kept_add(p, json_stringn(s, len));
    }
    return 1;
}

static int kept_open(struct rank_parser *p, json_t *container)
{
    if (!container) {
        p->skip = 1;
        return fail(p, "out of memory");
    }
    if (p->nbuild == MAX_KEPT_DEPTH) {
        json_decref(container);
        p->skip = 1;
        return fail(p, "\"%s\" is nested too deeply", p->key);
    }
    json_incref(container);
    int rc = kept_add(p, container);
    p->build[p->nbuild] = container;
    p->build_key[p->nbuild][0] = '\0';
    p->nbuild++;
    json_decref(container);
    return rc;
}

static int on_value(struct rank_parser *p, enum token tok, const char *s, size_t len)
{
    if (p->skip)
        return 1;
    if (keeping(p))
        return kept_value(p, tok, s, len);
    if (p->top == 0)
        return 1;  /* a document that is not an object has no format: finish() says so */
    struct frame *fr = &p->stack[p->top - 1];
    char at[64];
    switch (fr->kind) {
    case FR_FILE:
        if (key_is(p, "format"))
            return check_format(p, tok, s, len);
        if (key_is(p, "ranks") || section_named(p))
            return fail(p, "\"%.*s\" is not an array", (int)p->key_len, p->key);
        /* fall through */
    case FR_INNER:
    case FR_ELEM: {
        const char *outer;
        size_t olen;
        struct frame *t = table_frame(p, &outer, &olen);
        if (fr->kind == FR_ELEM && fr->section->hist && key_is(p, "hist"))
            return tok == T_NULL ? 1 : fail(p, "%s\"hist\" is not an array", where(p, at, sizeof at));
        const struct field *fd = find_field(p, t, outer, olen);
        return fd ? store(p, t, fd, tok, s, len) : 1;
    }
    case FR_LIST:
        fr->index++;
        return fail(p, "%snot an object but %s", where(p, at, sizeof at), token_name(tok));
    case FR_RANKS:
        if (tok == T_NUM) {
            long long v;
            if (parse_ll(s, len, &v) && v >= INT_MIN && v <= INT_MAX) {
                rank_fill_rank(&p->fill, v);
                return 1;
            }
        }
        return fail(p, "\"ranks\"[%zu] is not an integer", p->f->nranks);
    case FR_HIST:
        fr->index++;
        return fail(p, "%s\"hist\"[%zu] is not [bucket, count]", where(p, at, sizeof at),
                    fr->index - 1);
    case FR_BIN:
        return on_bin_value(p, tok, s, len);
    }
    return 1;
}

/* ---- yajl's callbacks ---- */

static int cb_null(void *ctx)
{
    return on_value(ctx, T_NULL, "", 0);
}

static int cb_boolean(void *ctx, int v)
{
    return on_value(ctx, T_BOOL, v ? "t" : "", v ? 1 : 0);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
    return on_value(ctx, T_NUM, s, len);
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    return on_value(ctx, T_STR, (const char *)s, len);
}

static int cb_map_key(void *ctx, const unsigned char *s, size_t len)
{
    struct rank_parser *p = ctx;
    if (p->skip)
        return 1;
    if (p->nbuild > 0) {
        snprintf(p->build_key[p->nbuild - 1], sizeof p->build_key[0], "%.*s",
                 (int)strnlen((const char *)s, len), (const char *)s);
        return 1;
    }
    if (len >= sizeof p->key) {
        p->key_len = SIZE_MAX;
        return 1;
    }
    memcpy(p->key, s, len);
    p->key[len] = '\0';
    p->key_len = len;
    return 1;
}

/* A new element of the section of list frame fr, with its defaults. */
static void *new_element(struct rank_parser *p, struct frame *fr)
{
    fr->index++;
    return fr->section->add(&p->fill);
}

/* An object or array where a value of another kind was wanted: say so, and
 * skip over it. */
static int unexpected(struct rank_parser *p, const char *what)
{
    const char *outer;
    size_t olen;
    struct frame *t = table_frame(p, &outer, &olen);
    const struct field *fd = t ? find_field(p, t, outer, olen) : NULL;
    p->skip = 1;
    if (!fd)
        return 1;  /* an unknown field: skipped */
    char at[64];
    return fail(p, "%s\"%s\" is not %s but %s", where(p, at, sizeof at), fd->path,
                json_kind_name(fd->kind), what);
}

static int cb_start_map(void *ctx)
{
    struct rank_parser *p = ctx;
    if (p->skip) {
        p->skip++;
        return 1;
    }
    if (keeping(p))
        return kept_open(p, json_object());
    if (p->top == 0) {
        struct frame *fr = push(p, FR_FILE);
        fr->fields = file_fields;
        fr->nfields = NFIELDS(file_fields);
        fr->dst = p->f;
        p->root_seen = true;
        return 1;
    }
    struct frame *fr = &p->stack[p->top - 1];
    char at[64];
    switch (fr->kind) {
    case FR_FILE:
        if (key_is(p, "ranks") || section_named(p)) {
            p->skip = 1;
            return fail(p, "\"%s\" is not an array", p->key);
        }
        /* fall through */
    case FR_ELEM:
        if (!(fr->kind == FR_ELEM && fr->section->hist && key_is(p, "hist")) && is_prefix(p, fr)) {
            struct frame *inner = push(p, FR_INNER);
            memcpy(inner->outer, p->key, p->key_len + 1);
            inner->outer_len = p->key_len;
            return 1;
        }
        if (fr->kind == FR_ELEM && fr->section->hist && key_is(p, "hist")) {
            p->skip = 1;
            return fail(p, "%s\"hist\" is not an array", where(p, at, sizeof at));
        }
        return unexpected(p, "an object");
    case FR_INNER:
        return unexpected(p, "an object");
    case FR_LIST: {
        void *elem = new_element(p, fr);
        struct frame *e = push(p, FR_ELEM);
        e->section = fr->section;
        e->fields = fr->section->fields;
        e->nfields = fr->section->nfields;
        e->dst = elem;
        return 1;
    }
    case FR_RANKS:
        p->skip = 1;
        return fail(p, "\"ranks\"[%zu] is not an integer", p->f->nranks);
    case FR_HIST:
        fr->index++;
        /* fall through */
    case FR_BIN:
        p->skip = 1;
        return fail(p, "%s\"hist\"[%zu] is not [bucket, count]", where(p, at, sizeof at),
                    (fr->kind == FR_BIN ? fr - 1 : fr)->index - 1);
    }
    return 1;
}

static int check_required(struct rank_parser *p, const struct frame *t)
{
    char at[64];
    for (size_t i = 0; i < t->nfields; i++)
        if (!t->fields[i].optional && !(t->seen & (1ull << i)))
            return fail(p, "%s\"%s\" is missing", where(p, at, sizeof at), t->fields[i].path);
    return 1;
}

static int cb_end_map(void *ctx)
{
    struct rank_parser *p = ctx;
    if (p->skip) {
        p->skip--;
        return 1;
    }
    if (p->nbuild > 0) {
        p->nbuild--;
        return 1;
    }
    struct frame *fr = &p->stack[p->top - 1];
    int rc = 1;
    if (fr->kind == FR_ELEM) {
        rc = check_required(p, fr);
        /* A whole element out of range is left out, as a per-op record
         * is: the rest of the file is still good. */
        if (rc)
            fr->section->check(&p->fill);
    }
    if (fr->kind == FR_FILE) {
        rc = check_required(p, fr);
        if (rc && !p->ranks_seen)
            rc = fail(p, "\"ranks\" is missing");
        for (size_t i = 0; rc && i < NSECTIONS; i++)
            if (!p->section_seen[i])
                rc = fail(p, "\"%s\" is missing", sections[i].key);
    }
    p->top--;
    return rc;
}

static int cb_start_array(void *ctx)
{
    struct rank_parser *p = ctx;
    if (p->skip) {
        p->skip++;
        return 1;
    }
    if (keeping(p))
        return kept_open(p, json_array());
    if (p->top == 0) {
        p->skip = 1;  /* not an object: finish() says there is no format */
        return 1;
    }
    struct frame *fr = &p->stack[p->top - 1];
    char at[64];
    switch (fr->kind) {
    case FR_FILE: {
        const struct section *s = section_named(p);
        if (s) {
            push(p, FR_LIST)->section = s;
            p->section_seen[s - sections] = true;
            return 1;
        }
        if (key_is(p, "ranks")) {
            push(p, FR_RANKS);
            p->ranks_seen = true;
            return 1;
        }
        return unexpected(p, "an array");
    }
    case FR_ELEM:
        if (fr->section->hist && key_is(p, "hist")) {
            push(p, FR_HIST);
            p->nbins = 0;
            return 1;
        }
        return unexpected(p, "an array");
    case FR_INNER:
        return unexpected(p, "an array");
    case FR_LIST:
        fr->index++;
        p->skip = 1;
        return fail(p, "%snot an object but an array", where(p, at, sizeof at));
    case FR_RANKS:
        p->skip = 1;
        return fail(p, "\"ranks\"[%zu] is not an integer", p->f->nranks);
    case FR_HIST:
        fr->index++;
        if (p->nbins == p->bins_cap)
            p->bins = xrealloc(p->bins, (p->bins_cap = p->bins_cap ? 2 * p->bins_cap : 64) *
                                        sizeof *p->bins);
        p->nbins++;
        push(p, FR_BIN);
        return 1;
    case FR_BIN:
        p->skip = 1;
        return fail(p, "%s\"hist\"[%zu] is not [bucket, count]", where(p, at, sizeof at),
                    (fr - 1)->index - 1);
    }
    return 1;
}

static int cb_end_array(void *ctx)
{
    struct rank_parser *p = ctx;
    if (p->skip) {
        p->skip--;
        return 1;
    }
    if (p->nbuild > 0) {
        p->nbuild--;
        return 1;
    }
    struct frame *fr = &p->stack[--p->top];
    char at[64];
    if (fr->kind == FR_BIN && fr->index != 2)
        return fail(p, "%s\"hist\"[%zu] is not [bucket, count]", where(p, at, sizeof at),
                    p->stack[p->top - 1].index - 1);
    if (fr->kind == FR_HIST)
        rank_fill_hist(&p->fill, p->stack[p->top - 1].dst, p->bins, p->nbins);
    return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = cb_null,
    .yajl_boolean = cb_boolean,
    .yajl_number = cb_number,
    .yajl_string = cb_string,
    .yajl_start_map = cb_start_map,
    .yajl_map_key = cb_map_key,
    .yajl_end_map = cb_end_map,
    .yajl_start_array = cb_start_array,
    .yajl_end_array = cb_end_array,
};

/* ---- the interface ---- */

struct rank_parser *rank_parser_new(struct report *r, struct rank_file *f)
{
    struct rank_parser *p = xcalloc(1, sizeof *p);
    p->r = r;
    p->f = f;
    p->line = p->column = 1;
    rank_fill_begin(&p->fill, r, f);
    p->yajl = yajl_alloc(&callbacks, NULL, p);
    p->kept = json_object();
    if (!p->yajl || !p->kept) {
        msg("out of memory");
        exit(1);
    }
    return p;
}

/* Moves the position past buf[0..len). */
static void advance(struct rank_parser *p, const char *buf, size_t len)
{
    if (len == 0)
        return;  /* buf may be NULL: the end of the input */
    for (const char *s = buf, *end = buf + len, *nl; s < end; s = nl + 1) {
        nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl) {
            p->column += (size_t)(end - s);
            return;
        }
        p->line++;
        p->column = 1;
    }
}

/* Says what yajl found wrong at buf[consumed]. */
static void syntax_error(struct rank_parser *p, const unsigned char *buf, size_t len)
{
    size_t consumed = buf ? yajl_get_bytes_consumed(p->yajl) : 0;
    if (consumed > len)
        consumed = len;
    advance(p, (const char *)buf, consumed);
    unsigned char *e = yajl_get_error(p->yajl, 0, buf, len);
    const char *text = (const char *)e;
    if (text && strncmp(text, "parse error: ", 13) == 0)
        text += 13;
    /* yajl's message ends with a newline */
    snprintf(p->why, sizeof p->why, "not JSON: %.*s (line %zu, column %zu)",
             text ? (int)strcspn(text, "\n") : 0, text ? text : "", p->line, p->column);
    yajl_free_error(p->yajl, e);
    p->failed = true;
}

int rank_parser_feed(struct rank_parser *p, const void *buf, size_t len)
{
    if (p->failed && p->format_seen)
        return -1;
    yajl_status st = yajl_parse(p->yajl, buf, len);
    if (st == yajl_status_ok) {
        advance(p, buf, len);
        return 0;
    }
    if (st == yajl_status_error) {
        p->format_seen = true;  /* not JSON says more than any field */
        syntax_error(p, buf, len);
    }
    return -1;
}

int rank_parser_finish(struct rank_parser *p, char *why, size_t why_len)
{
    if (!(p->failed && p->format_seen) && yajl_complete_parse(p->yajl) == yajl_status_error) {
        p->format_seen = true;
        syntax_error(p, NULL, 0);
    }
    if (!p->failed && !p->format_seen)
        snprintf(p->why, sizeof p->why, "no \"format\": not a per-rank file of nccltap");
    if (p->failed || !p->format_seen) {
        snprintf(why, why_len, "%s", p->why);
        return -1;
    }
    rank_fill_end(&p->fill);
    return rank_fill_kept(&p->fill, p->kept, why, why_len);
}

void rank_parser_free(struct rank_parser *p)
{
    if (!p)
        return;
    yajl_free(p->yajl);
    json_decref(p->kept);
    free(p->bins);
    free(p);
}

