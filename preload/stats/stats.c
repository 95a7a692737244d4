#include "stats/stats.h"

#include <stdlib.h>

#include "state/comm_registry.h"
#include "state/shared.h"
#include "nccl/nccl_ops.h"
#include "stats/site_stats.h"

/* Entries in an array (stable order for the writer) indexed by an
 * open-addressing table of indexes that doubles when half full. */
static struct tap_stat *entries;
static unsigned nentries, entries_cap;
static unsigned *index_of; /* slot -> entry index + 1, 0 empty */
static unsigned index_slots;
static uint64_t calls_without_row; /* tap_stats_calls_without_row */

static uint64_t key_hash(const struct tap_comm *c, int op, int dtype, int cls)
{
    uint64_t h = (uint64_t)(uintptr_t)c * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)op << 40) ^ ((uint64_t)(uint32_t)dtype << 8) ^ (uint64_t)cls;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static int key_equal(const struct tap_stat *s, const struct tap_comm *c, int op, int dtype, int cls)
{
    return s->comm == c && s->op == op && s->dtype == dtype && s->size_class == cls;
}

static int grow_index(void)
{
    unsigned slots = index_slots ? index_slots * 2 : 256;
    unsigned *idx = calloc(slots, sizeof *idx);
    if (!idx)
        return -1;
    for (unsigned e = 0; e < nentries; e++) {
        const struct tap_stat *s = &entries[e];
        unsigned i = (unsigned)key_hash(s->comm, s->op, s->dtype, s->size_class) & (slots - 1);
        while (idx[i])
            i = (i + 1) & (slots - 1);
        idx[i] = e + 1;
    }
    free(index_of);
    index_of = idx;
    index_slots = slots;
    return 0;
}

__attribute__((noinline)) static struct tap_stat *find_or_add_indexed(struct tap_comm *c, int op,
                                                                       int dtype, int cls)
{
    if (2 * (nentries + 1) > index_slots && grow_index() != 0)
        return NULL;
    unsigned i = (unsigned)key_hash(c, op, dtype, cls) & (index_slots - 1);
    for (; index_of[i]; i = (i + 1) & (index_slots - 1)) {
        struct tap_stat *s = &entries[index_of[i] - 1];
        if (key_equal(s, c, op, dtype, cls))
            return s;
    }
    if (nentries == entries_cap) {
        unsigned cap = entries_cap ? entries_cap * 2 : 64;
        struct tap_stat *grown = realloc(entries, cap * sizeof *grown);
        if (!grown)
            return NULL;
        entries = grown;
        entries_cap = cap;
    }
    struct tap_stat *s = &entries[nentries];
    tap_stat_init(s);
    s->comm = c;
    s->op = (uint8_t)op;
    s->dtype = dtype;
    s->size_class = (uint8_t)cls;
    index_of[i] = ++nentries;
    return s;
}

/* The row of the last record: consecutive records are mostly of one key.
 * Its index (for the site table), and a pointer to it, so that the check
 * of every call costs no index arithmetic; NULL when none, and set again
 * after every slow lookup, which alone moves the entries (realloc). */
static unsigned last;
static struct tap_stat *last_row;

/* Inlined: tap_stats_record runs for every call. */
static inline __attribute__((always_inline)) struct tap_stat *find_or_add(struct tap_comm *c, int op, int dtype,
                                                                          int cls)
{
    if (last_row && key_equal(last_row, c, op, dtype, cls))
        return last_row;
    struct tap_stat *s = find_or_add_indexed(c, op, dtype, cls);
    last_row = s;
    if (s)
        last = (unsigned)(s - entries);
    return s;
}

/* A call that was timed or stamped, or made at another site than its
 * row's last: its site's entry becomes the row's hint. */
__attribute__((noinline)) static void record_rest(struct tap_stat *s, const struct tap_op_rec *op,
                                                  const struct tap_timing *t)
{
    struct tap_site_stat *site = tap_site_stats_find(op->site, last);
    if (site)
        s->site_hint = (uint32_t)(site - tap_site_entries) + 1;
    if (tap_stat_add_call_detail(s, site, op->bytes, t) != 0)
        tap_note_no_memory("a duration histogram (the call is counted, not timed)");
}

/* Runs for every call: the common case (same key as the last call, same
 * call site, no time) is two compares and five additions. */
void tap_stats_record(const struct tap_op_rec *op, uint32_t group_ops, const struct tap_timing *t)
{
    struct tap_stat *s = find_or_add(op->comm, op->op, op->dtype, (int)tap_size_class(op->bytes));
    if (!s) {
        calls_without_row++;
        tap_note_no_memory("a statistics row (the call is in totals.no_memory, in no row)");
        return;
    }
    tap_stat_count_call(s, op->bytes, group_ops);
    uint32_t k = s->site_hint;
    if (!t && k && tap_site_entries[k - 1].site == op->site) {
        tap_site_entries[k - 1].calls++;
        tap_site_entries[k - 1].bytes_total += op->bytes;
        return;
    }
    record_rest(s, op, t);
}

/* The row of a captured op's record, for the three counts below (once a
 * capture or a replay, not per call: find_or_add is inlined here once). */
static __attribute__((noinline)) struct tap_stat *row_of(const struct tap_op_rec *op)
{
    return find_or_add(op->comm, op->op, op->dtype, (int)tap_size_class(op->bytes));
}

void tap_stats_record_replay(const struct tap_op_rec *op, const struct tap_timing *t)
{
    struct tap_stat *s = row_of(op);
    if (!s)
        tap_note_no_memory("a statistics row (a captured op's execution is not timed)");
    else if (tap_stat_add_time(s, t) != 0)
        tap_note_no_memory("a duration histogram (the call is counted, not timed)");
}

void tap_stats_record_captured(const struct tap_op_rec *op)
{
    struct tap_stat *s = row_of(op);
    if (s)
        s->captured++;
}

void tap_stats_record_executions(const struct tap_op_rec *op, uint64_t n)
{
    struct tap_stat *s = row_of(op);
    if (s)
        s->executions += n;
    else
        tap_note_no_memory("a statistics row (a captured op's executions are not counted)");
}

unsigned tap_stats_count(void) { return nentries; }

uint64_t tap_stats_calls_without_row(void) { return calls_without_row; }

const struct tap_stat *tap_stats_at(unsigned i) { return &entries[i]; }

void tap_stats_reset(void)
{
    calls_without_row = 0;
    last = 0;
    last_row = NULL;
    /* The child starts empty; the parent's tables are left allocated. */
    entries = NULL;
    nentries = entries_cap = 0;
    index_of = NULL;
    index_slots = 0;
}
