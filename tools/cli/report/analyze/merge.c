/* What the report derives across ranks: communicators, ranks, and op rows
 * merged per (communicator, op, dtype, size class). Shared by the text and
 * the JSON report so that both say the same thing. */
#include "merge.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- communicators ---- */

static int cmp_comm_entry(const void *a, const void *b)
{
    const struct comm_entry *x = *(const struct comm_entry *const *)a;
    const struct comm_entry *y = *(const struct comm_entry *const *)b;
    return x->id == y->id ? 0 : strcmp(x->id, y->id);
}

struct comm_summary *report_comms(const struct report *r, size_t *n)
{
    size_t total = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        total += r->files[i].ncomms;
    const struct comm_entry **all = xcalloc(total, sizeof *all);
    size_t k = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].ncomms; j++)
            all[k++] = &r->files[i].comms[j];
    qsort(all, total, sizeof *all, cmp_comm_entry);

    struct comm_summary *out = xcalloc(total, sizeof *out);
    *n = 0;
    for (size_t i = 0; i < total; i++) {
        const struct comm_entry *c = all[i];
        if (*n == 0 || strcmp(out[*n - 1].id, c->id) != 0)
            out[(*n)++] = (struct comm_summary){ c->id, c->name, c->parent, c->nranks, 0, NAN, -1 };
        struct comm_summary *s = &out[*n - 1];
        s->ranks_seen++;
        if (!isnan(c->init_ms) && !(c->init_ms <= s->init_ms)) {
            s->init_ms = c->init_ms;
            s->init_rank = c->rank;
        }
        /* Ranks agree on these; one that does not know them (a rank that
         * never saw the name, say) should not hide what another knows. */
        if (!s->name[0])
            s->name = c->name;
        if (!s->parent[0])
            s->parent = c->parent;
        if (c->nranks > s->nranks)
            s->nranks = c->nranks;
    }
    free(all);
    return out;
}

/* ---- ranks ---- */

static int cmp_rank(const void *a, const void *b)
{
    const struct rank_summary *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    int c = strcmp(x->file->host, y->file->host);
    if (c)
        return c;
    return (x->file->pid > y->file->pid) - (x->file->pid < y->file->pid);
}

struct rank_summary *report_ranks(const struct report *r, size_t *n)
{
    size_t total = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        total += r->files[i].nranks;
    struct rank_summary *out = xcalloc(total, sizeof *out);
    size_t k = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].nranks; j++)
            out[k++] = (struct rank_summary){ r->files[i].ranks[j], &r->files[i] };
    qsort(out, total, sizeof *out, cmp_rank);
    *n = total;
    return out;
}

/* ---- op rows ---- */

static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

/* Strings of the model are interned: equal pointers are equal strings,
 * which spares most strcmp() calls when sorting a million rows. */
static int cmp_str(const char *a, const char *b)
{
    return a == b ? 0 : strcmp(a, b);
}

static int cmp_key(const struct op_row *x, const struct op_row *y)
{
    int c = cmp_str(x->comm, y->comm);
    if (!c)
        c = cmp_str(x->op, y->op);
    if (!c)
        c = cmp_str(x->dtype, y->dtype);
    if (!c)
        c = cmp_u64(x->size_class, y->size_class);
    return c;
}

static int cmp_row(const void *a, const void *b)
{
    const struct op_row *x = *(const struct op_row *const *)a;
    const struct op_row *y = *(const struct op_row *const *)b;
    int c = cmp_key(x, y);
    if (!c)
        c = (x->rank > y->rank) - (x->rank < y->rank);
    if (!c)  /* the same rank twice (two runs in one directory): stable order */
        c = strcmp(x->file->path, y->file->path);
    return c;
}

bool op_row_same_key(const struct op_row *a, const struct op_row *b)
{
    return cmp_key(a, b) == 0;
}

const struct op_row **report_rows(const struct report *r, size_t *n)
{
    size_t total = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        total += r->files[i].nops;
    const struct op_row **rows = xcalloc(total, sizeof *rows);
    size_t k = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        for (size_t j = 0; j < r->files[i].nops; j++)
            rows[k++] = &r->files[i].ops[j];
    qsort(rows, total, sizeof *rows, cmp_row);
    *n = total;
    return rows;
}

/* How many times the row's ops ran: each call, but a captured one as many
 * times as its graph was launched. */
static uint64_t op_row_runs(const struct op_row *row)
{
    uint64_t direct = row->calls > row->captured ? row->calls - row->captured : 0;
    return direct + row->executions;
}

double op_row_time_us(const struct op_row *row)
{
    if (isnan(row->us_mean))
        return 0.0;
    return row->us_mean * (double)op_row_runs(row) / (row->grouped > 1.0 ? row->grouped : 1.0);
}

/* Bytes per nanosecond is 1e9 bytes per second: GB/s as nccl-tests counts. */
/* ---- merging ---- */

/* The representative duration of a bucket: its geometric middle, within 2%
 * of any duration in it. */
static double bucket_ns(int bucket)
{
    return pow(1.04, bucket + 0.5);
}

/* Nearest-rank percentiles of the histograms of rows[0..n) put together,
 * clamped to the exact extremes so that p99 never exceeds max. Negative when
 * no histogram was given. One count per bucket (the loaders keep buckets
 * below REPORT_HIST_BUCKETS), so that thousands of ranks cost one pass over
 * their bins, not a sort. */
static void merged_percentiles(const struct op_row *const *rows, size_t n,
                               struct op_merged *m)
{
    uint64_t count[REPORT_HIST_BUCKETS] = { 0 };
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < rows[i]->nhist; j++) {
            count[rows[i]->hist[j].bucket] += rows[i]->hist[j].count;
            total += rows[i]->hist[j].count;
        }
    m->p50_ns = m->p99_ns = -1.0;
    const double q[2] = { 0.50, 0.99 };
    double *out[2] = { &m->p50_ns, &m->p99_ns };
    for (int p = 0; p < 2 && total > 0; p++) {
        uint64_t target = (uint64_t)ceil(q[p] * (double)total);
        if (target == 0)
            target = 1;
        uint64_t seen = 0;
        for (int b = 0; b < REPORT_HIST_BUCKETS; b++) {
            seen += count[b];
            if (seen >= target) {
                *out[p] = bucket_ns(b);
                break;
            }
        }
        if (m->t_max > 0) {
            if (*out[p] > (double)m->t_max)
                *out[p] = (double)m->t_max;
            if (*out[p] < (double)m->t_min)
                *out[p] = (double)m->t_min;
        }
    }
}

void op_merge(const struct op_row *const *rows, size_t n, struct op_merged *m)
{
    memset(m, 0, sizeof *m);
    m->first = rows[0];
    m->nrows = n;
    m->first_us = NAN;
    double grouped_weight = 0.0;
    bool spread_set = false;
    for (size_t i = 0; i < n; i++) {
        const struct op_row *row = rows[i];
        m->calls += row->calls;
        m->timed += row->timed;
        m->captured += row->captured;
        m->executions += row->executions;
        m->bytes_total += row->bytes_total;
        grouped_weight += row->grouped * (double)row->calls;
        m->bw_bytes += row->bw_bytes;
        m->bw_busbytes += row->bw_busbytes;
        if (!isnan(row->first_us) && !(row->first_us <= m->first_us)) {
            m->first_us = row->first_us;
            m->first_rank = row->rank;
        }
        if (!row->t_count)
            continue;
        m->t_count += row->t_count;
        m->t_sum += row->t_sum;
        if (m->t_min == 0 || row->t_min < m->t_min)
            m->t_min = row->t_min;
        if (row->t_max > m->t_max)
            m->t_max = row->t_max;
        double bw = op_row_busbw_total(row);
        if (!spread_set || bw < m->busbw_lo) {
            m->busbw_lo = bw;
            m->busbw_lo_rank = row->rank;
        }
        if (!spread_set || bw > m->busbw_hi) {
            m->busbw_hi = bw;
            m->busbw_hi_rank = row->rank;
        }
        spread_set = true;
    }
    m->grouped = m->calls ? grouped_weight / (double)m->calls : 1.0;
    merged_percentiles(rows, n, m);
}

void rank_file_nccl_time(const struct rank_file *f, struct nccl_time *t)
{
    memset(t, 0, sizeof *t);
    t->busy_s = f->nccl_busy_s;
    t->timed_s = f->nccl_timed_s;
    uint64_t calls = 0;
    for (size_t i = 0; i < f->nops; i++) {
        const struct op_row *row = &f->ops[i];
        calls += row->calls;
        double per_call_us = row->t_count ? row->us_mean : row->first_us;
        uint64_t runs = op_row_runs(row), known = row->timed + row->stamped;
        uint64_t untimed = runs > known ? runs - known : 0;
        if (!untimed)
            continue;
        if (isnan(per_call_us)) {
            t->unestimated_calls += untimed;
            continue;
        }
        t->untimed_est_s += (double)untimed / (row->grouped > 1.0 ? row->grouped : 1.0) * per_call_us * 1e-6;
    }
    t->share = NAN;
    if (isnan(t->busy_s) || isnan(t->timed_s) || f->wall_s <= 0.0)
        return;
    if (t->timed_s <= 0.0) {
        if (calls == 0)
            t->share = 0.0;
        return;
    }
    double share = t->busy_s / f->wall_s * (t->timed_s + t->untimed_est_s) / t->timed_s;
    t->share = share > 1.0 ? 1.0 : share;
}

double rank_file_nccl_share(const struct rank_file *f)
{
    struct nccl_time t;
    rank_file_nccl_time(f, &t);
    return t.share;
}

void totals_add(struct totals *a, const struct totals *b)
{
    a->calls += b->calls;
    a->dropped += b->dropped;
    a->timed += b->timed;
    a->stamped += b->stamped;
    a->untimed += b->untimed;
    a->captured += b->captured;
    a->pending += b->pending;
    a->failed += b->failed;
    a->lost += b->lost;
    a->simulated += b->simulated;
    a->ops_lines_dropped += b->ops_lines_dropped;
    a->in_flight += b->in_flight;
    a->no_memory += b->no_memory;
    a->after_exit += b->after_exit;
    a->comms_past_limit += b->comms_past_limit;
    a->graphs_untracked += b->graphs_untracked;
}
