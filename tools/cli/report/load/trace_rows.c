/* Every op_enqueue is a call, joined to its op_complete (same process,
 * communicator, rank and sequence number) when it was timed. Each call is
 * added to its row by the shim's own reduction (stats/stat_row.h), in
 * sequence order, so that a report from the trace and one from the
 * per-rank files agree; each row goes from the reduction straight into
 * the model, through the fill rank files go through (rank_fill.h). */
#include "trace_rows.h"
#include "util.h"
#include "stats/stat_row.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One op of a row, with its completion when it was timed. */
struct call {
    const struct tm_op *op;
    const struct tm_done *done;  /* NULL unless timed precisely */
    uint64_t grouped;   /* ops in its group, 1 when not grouped */
    bool stamped;       /* its interval is from marks: counted, no time */
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

/* The call's time as the shim handed it to its statistics; NULL when it
 * was neither timed nor stamped. The event carries the bandwidth, not the
 * bytes behind it (a group's): bandwidth x time gives them back. */
static const struct tap_timing *timing_of(const struct call *c, struct tap_timing *t)
{
    if (c->stamped) {
        *t = (struct tap_timing){ .stamped = true };
        return t;
    }
    const struct tm_done *d = c->done;
    if (!d)
        return NULL;
    double ns = (double)d->duration_ns;
    *t = (struct tap_timing){ d->duration_ns, d->algbw_gbs * ns, d->busbw_gbs * ns, false };
    return t;
}

/* The ops of the call's group as the shim counted them: the completion's
 * count when it was timed, else the group's ops in the trace. */
static uint32_t group_ops_of(const struct call *c)
{
    uint64_t n = !c->done ? c->grouped : c->done->group_ops ? c->done->group_ops : 1;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static const char *comm_name(const struct tm_proc *p, uint64_t id, int rank)
{
    for (size_t i = 0; i < p->ncomms; i++)
        if (p->comms[i].id == id && p->comms[i].rank == rank)
            return p->comms[i].name;
    return "";
}

/* The row's size class as the per-rank file has it. */
static uint64_t size_class_of(const struct tm_op *key, const struct tap_stat *s)
{
    unsigned cls = size_class(key->bytes);
    return cls || s->bytes_total ? 1ull << cls : 0;
}

/* The histogram's non-empty buckets, ascending, as the rank file lists
 * them. */
_Static_assert(TAP_HIST_BUCKETS == REPORT_HIST_BUCKETS, "the shim's buckets are the report's");
static void fill_hist(struct rank_fill *w, struct op_row *row, const struct tap_stat *s)
{
    struct hist_bin bins[TAP_HIST_BUCKETS];
    size_t n = 0;
    for (unsigned b = 0; b < TAP_HIST_BUCKETS; b++)
        if (s->hist[b])
            bins[n++] = (struct hist_bin){ (int32_t)b, s->hist[b] };
    rank_fill_hist(w, row, bins, n);
}

/* The times of the steady calls; left at the fill's defaults (not known)
 * when there are none. The expressions are the rank file writer's
 * (preload/writers/rank_file.c), to the bit. */
static void fill_times(struct op_row *row, const struct tap_stat *s)
{
    row->t_count = s->steady;
    row->t_sum = s->time_sum_ns;
    if (!s->steady)
        return;
    double steady = (double)s->steady, us = 1e-3;
    row->t_min = s->time_min_ns;
    row->t_max = s->time_max_ns;
    row->us_mean = (double)s->time_sum_ns / steady * us;
    row->us_min = (double)s->time_min_ns * us;
    row->us_p50 = tap_stat_quantile_ns(s, 0.50) * us;
    row->us_p90 = tap_stat_quantile_ns(s, 0.90) * us;
    row->us_p99 = tap_stat_quantile_ns(s, 0.99) * us;
    row->us_max = (double)s->time_max_ns * us;
    row->algbw_gbs = s->algbw_sum / steady;
    row->busbw_gbs = s->busbw_sum / steady;
}

/* A row of key k from its reduction s, as the shim's rank file has it. */
static void fill_row(struct rank_fill *w, const struct tm_proc *p, const struct tm_op *k, const struct tap_stat *s)
{
    struct op_row *row = rank_fill_row(w);
    char comm[17];
    snprintf(comm, sizeof comm, "%016llx", (unsigned long long)k->comm_id);
    row->rank = k->rank;
    row->comm = report_intern(w->r, comm);
    row->comm_name = report_intern(w->r, comm_name(p, k->comm_id, k->rank));
    row->op = report_intern(w->r, k->op);
    row->dtype = report_intern(w->r, k->dtype);
    row->size_class = size_class_of(k, s);
    row->bytes = (double)(s->bytes_total / s->calls);  /* the file's whole number of bytes */
    row->bytes_total = s->bytes_total;
    row->calls = s->calls;
    row->timed = s->timed;
    row->stamped = s->stamped;
    row->grouped = (double)s->group_ops / (double)s->calls;
    if (s->has_first)
        row->first_us = (double)s->first_ns * 1e-3;
    fill_times(row, s);
    row->bw_bytes = s->bw_bytes;
    row->bw_busbytes = s->bw_busbytes;
    fill_hist(w, row, s);
    rank_fill_row_check(w);
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

/* Whether the communicator's rank has a completion at or past seq
 * `from`. p->done sorted by cmp_done. */
static bool done_from(const struct tm_proc *p, uint64_t comm, int rank, uint64_t from)
{
    size_t lo = 0, hi = p->ndone;
    while (lo < hi) {  /* the first completion at or past (comm, rank, from) */
        size_t mid = lo + (hi - lo) / 2;
        const struct tm_done *d = &p->done[mid];
        if (cmp_seq(d->comm_id, d->rank, d->seq, comm, rank, from) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->ndone && p->done[lo].comm_id == comm && p->done[lo].rank == rank;
}

/* Per hang report of p (the latest of each communicator's rank), the
 * first seq from which that rank's calls without a completion are in
 * flight (UINT64_MAX: none): what the report knew complete (done_seq),
 * while nothing completed from its stuck op on. The shim never learnt
 * that such calls ran (a communicator's ops run in order; an untimed op
 * is known complete once a later op is), and its rank file counts them
 * in flight, in no row. Counted as calls of their rows, a hung rank's 80
 * calls queued behind the hang made its 19 collectives stand for 99 in
 * every estimate over a row's calls. None where a completion came from
 * the stuck op on (the hang ended: a pause past the timeout), nor where
 * the stuck op is untimed and the rank has no completion at all: under
 * NCCLTAP_TIMING=off the rows count every call as it is made. Owned by
 * the caller. */
static uint64_t *in_flight_from(const struct tm_proc *p)
{
    uint64_t *from = xcalloc(p->nhangs ? p->nhangs : 1, sizeof *from);
    for (size_t i = 0; i < p->nhangs; i++) {
        const struct tm_hang *h = &p->hangs[i];
        bool ended = done_from(p, h->comm_id, h->rank, h->seq);
        bool untracked = h->untimed && !done_from(p, h->comm_id, h->rank, 0);
        from[i] = ended || untracked ? UINT64_MAX : h->done_seq < h->seq ? h->done_seq : h->seq;
    }
    return from;
}

/* Whether op, without a completion, is in flight: from its rank's hang
 * report on (in_flight_from); or in a process that has no process_end
 * (killed, or its recording stopped first) where the trace records
 * process_end and op_complete (declares them: a session that left either
 * out, and traces of nccltap before process_end, keep every such call in
 * a row), and the op has events (its group's, if grouped: g, NULL when
 * its group never ended) whose completion never came. So the shim's rank
 * file counts it: an op with events reaches its row when they complete,
 * or at exit; one without, at once. */
static bool in_flight(const struct tm_proc *p, const uint64_t *from, const struct tm_op *op,
                      const struct tm_group *g)
{
    for (size_t i = 0; i < p->nhangs; i++)
        if (p->hangs[i].comm_id == op->comm_id && p->hangs[i].rank == op->rank)
            return op->seq >= from[i];
    if (p->ended || !p->ends_recorded || !p->completions_recorded)
        return false;
    return op->group_id ? !g || g->marked : op->marked;
}

/* The calls that are in rows, each with its completion; counts the others. */
static struct call *calls_of(struct tm_proc *p, size_t *ncalls, struct trace_row_totals *t)
{
    sort(p->ops, p->nops, sizeof *p->ops, cmp_op);
    sort(p->done, p->ndone, sizeof *p->done, cmp_done);
    sort(p->groups, p->ngroups, sizeof *p->groups, cmp_group);
    uint64_t *from = in_flight_from(p);
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
        const struct tm_group *g = NULL;
        if (op->group_id) {
            struct tm_group key = { .id = op->group_id };
            g = p->ngroups ? bsearch(&key, p->groups, p->ngroups, sizeof key, cmp_group) : NULL;
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
        if (!done && in_flight(p, from, op, g)) {
            t->in_flight++;
            continue;
        }
        bool stamped = done && done->stamped;
        if (stamped)
            done = NULL;
        t->timed += done != NULL;
        t->stamped += stamped;
        calls[n++] = (struct call){ op, done, op->group_id ? group_size(ids, nids, op->group_id) : 1, stamped };
    }
    free(ids);
    free(from);
    *ncalls = n;
    return calls;
}

/* One site's share of the row being reduced. */
struct site_share {
    unsigned site;
    struct tap_site_stat stat;
};

/* The share of `site` among shares[0..*n), added if new (a row's calls
 * come from a few sites). */
static struct tap_site_stat *share_of(struct site_share *shares, size_t *n, unsigned site)
{
    size_t k = 0;
    while (k < *n && shares[k].site != site)
        k++;
    if (k == *n)
        shares[(*n)++] = (struct site_share){ .site = site };
    return &shares[k].stat;
}

/* Each site's share of the row `s` into by_site, as the per-rank file's
 * callsites[].rows. */
static void add_site_rows(json_t *by_site, const struct tm_op *k, const struct tap_stat *s,
                          const struct site_share *shares, size_t n)
{
    char comm[17], id[16];
    snprintf(comm, sizeof comm, "%016llx", (unsigned long long)k->comm_id);
    for (size_t i = 0; i < n; i++) {
        const struct tap_site_stat *a = &shares[i].stat;
        snprintf(id, sizeof id, "%u", shares[i].site);
        json_t *rows = json_object_get(by_site, id);
        if (!rows)
            json_object_set_new(by_site, id, rows = json_array());
        json_array_append_new(rows, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f}",
            "comm", comm, "op", k->op, "dtype", k->dtype, "size_class", (json_int_t)size_class_of(k, s),
            "calls", (json_int_t)a->calls, "bytes_total", (json_int_t)a->bytes_total,
            "timed", (json_int_t)a->timed, "time_ns", (json_int_t)a->time_sum_ns,
            "bw_bytes", a->bw_bytes, "bw_busbytes", a->bw_busbytes));
    }
}

/* The row of calls c[0..n) (one key, in seq order), each added as the
 * shim adds a call: into `s` (set up here; the caller releases it) and
 * its site's share in shares (room for n). Returns the shares' count. */
static size_t reduce_row(const struct call *c, size_t n, struct tap_stat *s, struct site_share *shares)
{
    tap_stat_init(s);
    /* Allocated here, where running out of memory stops the command: the
     * reduction then never allocates, and never fails. */
    s->hist = xcalloc(TAP_HIST_BUCKETS, sizeof *s->hist);
    size_t nshares = 0;
    for (size_t i = 0; i < n; i++) {
        struct tap_timing t;
        tap_stat_count_call(s, c[i].op->bytes, group_ops_of(&c[i]));
        struct tap_site_stat *site = share_of(shares, &nshares, c[i].op->site);
        (void)tap_stat_add_call_detail(s, site, c[i].op->bytes, timing_of(&c[i], &t));
    }
    return nshares;
}

void trace_rows(struct rank_fill *w, struct tm_proc *p, struct trace_row_totals *t, json_t *by_site)
{
    memset(t, 0, sizeof *t);
    size_t n;
    struct call *calls = calls_of(p, &n, t);
    sort(calls, n, sizeof *calls, cmp_call);
    struct site_share *shares = xcalloc(n ? n : 1, sizeof *shares);
    for (size_t i = 0; i < n;) {
        const struct tm_op *key = calls[i].op;
        size_t first = i;
        while (i < n && cmp_key(calls[i].op, key) == 0)
            i++;
        struct tap_stat s;
        size_t nshares = reduce_row(&calls[first], i - first, &s, shares);
        fill_row(w, p, key, &s);
        add_site_rows(by_site, key, &s, shares, nshares);
        tap_stat_release(&s);
    }
    free(shares);
    free(calls);
}
