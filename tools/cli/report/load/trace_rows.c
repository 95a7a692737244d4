/* Every op_enqueue is a call, joined to its op_complete (same process,
 * communicator, rank and sequence number) when it was timed. The numbers
 * follow the shim's statistics (preload/stats.c, rank_file.c) so that a
 * report from the trace and one from the per-rank files agree. */
#include "trace_rows.h"
#include "util.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shim's duration histogram: bucket b holds [1.04^b, 1.04^(b+1)) ns. */
#define HIST_BASE 1.04
#define HIST_BUCKETS 720

/* One op of a row, with its completion when it was timed. */
struct call {
    const struct tm_op *op;
    const struct tm_done *done;  /* NULL unless timed precisely */
    uint64_t grouped;   /* ops in its group, 1 when not grouped */
    bool stamped;       /* its interval is from marks: counted, no time */
};

struct row {
    const struct tm_op *key;
    uint64_t calls, bytes_total, group_ops;
    uint64_t timed, stamped;
    uint64_t first_ns;                /* the first timed call, kept apart (timed > 0) */
    uint64_t steady, t_sum, t_min, t_max;  /* over the other timed calls */
    double algbw_sum, busbw_sum, bw_bytes, bw_busbytes;
    uint64_t hist[HIST_BUCKETS];
};

static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

/* (communicator, rank, sequence number): an op and its completion. */
static int cmp_seq(uint64_t comm_a, int rank_a, uint64_t seq_a,
                   uint64_t comm_b, int rank_b, uint64_t seq_b)
{
    int c = cmp_u64(comm_a, comm_b);
    if (!c)
        c = (rank_a > rank_b) - (rank_a < rank_b);
    return c ? c : cmp_u64(seq_a, seq_b);
}

static int cmp_u64_ptr(const void *a, const void *b)
{
    return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

static int cmp_op(const void *a, const void *b)
{
    const struct tm_op *x = a, *y = b;
    return cmp_seq(x->comm_id, x->rank, x->seq, y->comm_id, y->rank, y->seq);
}

static int cmp_done(const void *a, const void *b)
{
    const struct tm_done *x = a, *y = b;
    return cmp_seq(x->comm_id, x->rank, x->seq, y->comm_id, y->rank, y->seq);
}

static int cmp_group(const void *a, const void *b)
{
    return cmp_u64(((const struct tm_group *)a)->id, ((const struct tm_group *)b)->id);
}

static unsigned size_class(uint64_t bytes)
{
    return bytes > 1 ? 63u - (unsigned)__builtin_clzll(bytes) : 0u;
}

/* The row key: communicator, rank, op, datatype, size class. Names are
 * interned, so equal names are equal pointers; they are compared as text
 * only to give the rows a stable order. */
static int cmp_key(const struct tm_op *x, const struct tm_op *y)
{
    int c = cmp_u64(x->comm_id, y->comm_id);
    if (!c)
        c = (x->rank > y->rank) - (x->rank < y->rank);
    if (!c && x->op != y->op)
        c = strcmp(x->op, y->op);
    if (!c && x->dtype != y->dtype)
        c = strcmp(x->dtype, y->dtype);
    return c ? c : cmp_u64(size_class(x->bytes), size_class(y->bytes));
}

static int cmp_call(const void *a, const void *b)
{
    const struct call *x = a, *y = b;
    int c = cmp_key(x->op, y->op);
    return c ? c : cmp_u64(x->op->seq, y->op->seq);
}

static unsigned hist_bucket(uint64_t ns)
{
    if (ns <= 1)
        return 0;
    double b = log((double)ns) / log(HIST_BASE);
    return b >= HIST_BUCKETS - 1 ? HIST_BUCKETS - 1 : (unsigned)b;
}

static void add_call(struct row *r, const struct call *c)
{
    r->calls++;
    r->bytes_total += c->op->bytes;
    r->stamped += c->stamped;
    const struct tm_done *d = c->done;
    if (!d) {
        r->group_ops += c->grouped;
        return;
    }
    r->group_ops += d->group_ops ? d->group_ops : 1;
    uint64_t ns = d->duration_ns;
    /* The first timed call (in seq order) is kept apart, as the shim does. */
    if (r->timed++ == 0) {
        r->first_ns = ns;
        return;
    }
    r->steady++;
    r->t_sum += ns;
    if (r->steady == 1 || ns < r->t_min)
        r->t_min = ns;
    if (ns > r->t_max)
        r->t_max = ns;
    r->hist[hist_bucket(ns)]++;
    r->algbw_sum += d->algbw_gbs;
    r->busbw_sum += d->busbw_gbs;
    /* The event carries the bandwidth, not the bytes behind it (a group's
     * bytes): bandwidth x time gives them back. */
    r->bw_bytes += d->algbw_gbs * (double)ns;
    r->bw_busbytes += d->busbw_gbs * (double)ns;
}

/* Nearest rank on the histogram, read at the bucket's geometric middle and
 * kept within the exact extremes, as the shim reports percentiles. */
static double quantile_ns(const struct row *r, double q)
{
    uint64_t want = (uint64_t)ceil(q * (double)r->steady), seen = 0;
    if (want < 1)
        want = 1;
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        seen += r->hist[b];
        if (seen >= want) {
            double v = pow(HIST_BASE, b + 0.5);
            return fmin(fmax(v, (double)r->t_min), (double)r->t_max);
        }
    }
    return (double)r->t_max;
}

static const char *comm_name(const struct tm_proc *p, uint64_t id, int rank)
{
    for (size_t i = 0; i < p->ncomms; i++)
        if (p->comms[i].id == id && p->comms[i].rank == rank)
            return p->comms[i].name;
    return "";
}

/* v, or null when there is no steady timed call. */
static json_t *known(const struct row *r, double v)
{
    return r->steady ? json_real(v) : json_null();
}

static json_t *row_json(const struct tm_proc *p, const struct row *r)
{
    const struct tm_op *k = r->key;
    unsigned cls = size_class(k->bytes);
    char comm[17];
    snprintf(comm, sizeof comm, "%016llx", (unsigned long long)k->comm_id);
    double steady = (double)r->steady, us = 1e-3;
    json_t *hist = json_array();
    for (unsigned b = 0; b < HIST_BUCKETS; b++)
        if (r->hist[b])
            json_array_append_new(hist, json_pack("[I, I]", (json_int_t)b, (json_int_t)r->hist[b]));
    return json_pack(
        "{s:i, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:o,"
        " s:{s:I, s:I, s:o, s:o}, s:{s:o, s:o, s:o, s:o, s:o, s:o},"
        " s:o, s:o, s:f, s:f, s:o}",
        "rank", k->rank, "comm", comm, "comm_name", comm_name(p, k->comm_id, k->rank),
        "op", k->op, "dtype", k->dtype,
        "size_class", (json_int_t)(cls || r->bytes_total ? 1ull << cls : 0),
        "bytes", (json_int_t)(r->bytes_total / r->calls),
        "bytes_total", (json_int_t)r->bytes_total,
        "calls", (json_int_t)r->calls, "timed", (json_int_t)r->timed, "stamped", (json_int_t)r->stamped,
        "grouped", (double)r->group_ops / (double)r->calls,
        "first_us", r->timed ? json_real((double)r->first_ns * us) : json_null(),
        "time_ns", "count", (json_int_t)r->steady, "sum", (json_int_t)r->t_sum,
        "min", r->steady ? json_integer((json_int_t)r->t_min) : json_null(),
        "max", r->steady ? json_integer((json_int_t)r->t_max) : json_null(),
        "time_us", "mean", known(r, (double)r->t_sum / steady * us),
        "min", known(r, (double)r->t_min * us), "p50", known(r, quantile_ns(r, 0.50) * us),
        "p90", known(r, quantile_ns(r, 0.90) * us), "p99", known(r, quantile_ns(r, 0.99) * us),
        "max", known(r, (double)r->t_max * us),
        "algbw_gbs", known(r, r->algbw_sum / steady),
        "busbw_gbs", known(r, r->busbw_sum / steady),
        "bw_bytes", r->bw_bytes, "bw_busbytes", r->bw_busbytes, "hist", hist);
}

/* qsort, for arrays that may be empty (and NULL: qsort wants a pointer). */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

/* Ops of group `id` in the process (op group ids sorted in `ids`). */
static uint64_t group_size(const uint64_t *ids, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {  /* the first index with ids[i] >= id */
        size_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t first = lo;
    while (lo < n && ids[lo] == id)
        lo++;
    return lo - first;
}

/* The calls that are in rows, each with its completion; counts the others. */
static struct call *calls_of(struct tm_proc *p, size_t *ncalls, struct trace_row_totals *t)
{
    sort(p->ops, p->nops, sizeof *p->ops, cmp_op);
    sort(p->done, p->ndone, sizeof *p->done, cmp_done);
    sort(p->groups, p->ngroups, sizeof *p->groups, cmp_group);
    uint64_t *ids = xcalloc(p->nops, sizeof *ids);
    size_t nids = 0;
    for (size_t i = 0; i < p->nops; i++)
        if (p->ops[i].group_id)
            ids[nids++] = p->ops[i].group_id;
    sort(ids, nids, sizeof *ids, cmp_u64_ptr);

    struct call *calls = xcalloc(p->nops, sizeof *calls);
    size_t n = 0, d = 0;
    for (size_t i = 0; i < p->nops; i++) {
        const struct tm_op *op = &p->ops[i];
        /* Both sorted the same way: walk the completions alongside. */
        while (d < p->ndone && cmp_seq(p->done[d].comm_id, p->done[d].rank, p->done[d].seq,
                                       op->comm_id, op->rank, op->seq) < 0)
            d++;
        const struct tm_done *done = d < p->ndone && p->done[d].comm_id == op->comm_id &&
                                     p->done[d].rank == op->rank && p->done[d].seq == op->seq
                                         ? &p->done[d] : NULL;
        if (op->group_id) {
            struct tm_group key = { .id = op->group_id };
            const struct tm_group *g =
                p->ngroups ? bsearch(&key, p->groups, p->ngroups, sizeof key, cmp_group) : NULL;
            /* Such groups never ran: the shim keeps them out of its rows. */
            if (g && g->simulated) {
                t->simulated++;
                continue;
            }
            if (g && g->failed) {
                t->failed++;
                continue;
            }
        }
        bool stamped = done && done->stamped;
        if (stamped)
            done = NULL;
        t->timed += done != NULL;
        t->stamped += stamped;
        calls[n++] = (struct call){ op, done, op->group_id ? group_size(ids, nids, op->group_id) : 1, stamped };
    }
    free(ids);
    *ncalls = n;
    return calls;
}

/* One site's calls of one row. */
struct site_acc {
    unsigned site;
    uint64_t calls, bytes_total, timed, t_sum;
    double bw_bytes, bw_busbytes;
};

/* The row's calls c[0..n), in seq order, by call site, into by_site. */
static void add_site_rows(json_t *by_site, const struct call *c, size_t n, const struct row *r)
{
    struct site_acc *acc = xcalloc(n, sizeof *acc);
    size_t nacc = 0;
    bool first_timed = true;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < nacc && acc[k].site != c[i].op->site)
            k++;
        if (k == nacc)
            acc[nacc++].site = c[i].op->site;
        struct site_acc *a = &acc[k];
        a->calls++;
        a->bytes_total += c[i].op->bytes;
        const struct tm_done *d = c[i].done;
        if (!d)
            continue;
        if (first_timed) {  /* kept apart, as add_call keeps it */
            first_timed = false;
            continue;
        }
        a->timed++;
        a->t_sum += d->duration_ns;
        a->bw_bytes += d->algbw_gbs * (double)d->duration_ns;
        a->bw_busbytes += d->busbw_gbs * (double)d->duration_ns;
    }
    const struct tm_op *k = r->key;
    unsigned cls = size_class(k->bytes);
    char comm[17], id[16];
    snprintf(comm, sizeof comm, "%016llx", (unsigned long long)k->comm_id);
    for (size_t i = 0; i < nacc; i++) {
        const struct site_acc *a = &acc[i];
        snprintf(id, sizeof id, "%u", a->site);
        json_t *rows = json_object_get(by_site, id);
        if (!rows)
            json_object_set_new(by_site, id, rows = json_array());
        json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f}",
            "comm", comm, "op", k->op, "dtype", k->dtype,
            "size_class", (json_int_t)(cls || r->bytes_total ? 1ull << cls : 0),
            "calls", (json_int_t)a->calls, "bytes_total", (json_int_t)a->bytes_total,
            "timed", (json_int_t)a->timed, "time_ns", (json_int_t)a->t_sum,
            "bw_bytes", a->bw_bytes, "bw_busbytes", a->bw_busbytes));
    }
    free(acc);
}

json_t *trace_rows(struct tm_proc *p, struct trace_row_totals *t, json_t *by_site)
{
    memset(t, 0, sizeof *t);
    size_t n;
    struct call *calls = calls_of(p, &n, t);
    sort(calls, n, sizeof *calls, cmp_call);
    json_t *rows = json_array();
    struct row *r = xmalloc(sizeof *r);
    for (size_t i = 0; i < n;) {
        memset(r, 0, sizeof *r);
        r->key = calls[i].op;
        size_t first = i;
        for (; i < n && cmp_key(calls[i].op, r->key) == 0; i++)
            add_call(r, &calls[i]);
        json_array_append_new(rows, row_json(p, r));
        add_site_rows(by_site, &calls[first], i - first, r);
    }
    free(r);
    free(calls);
    return rows;
}
