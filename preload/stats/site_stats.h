/* Statistics per call site, beside the rows of stats.h: one entry per
 * (call site, statistics row), so that a site's calls can be told apart by
 * communicator, op and size, and a row can name the sites it came from.
 * Owned by the reducer thread, like stats.h. */
#ifndef NCCLTAP_SITE_STATS_H
#define NCCLTAP_SITE_STATS_H

#include <stdint.h>

#include "stats/stats.h"

/* 64 bytes: an entry is indexed on every call (a row's site_hint), and
 * a power of two takes a shift where 56 took three instructions. */
struct tap_site_stat {
    unsigned row;               /* tap_stats_at(row): its (comm, op, dtype, size class) */
    uint16_t site;              /* callsite.h's id; 0: the table was full */
    uint64_t calls, bytes_total;
    uint64_t timed, time_sum_ns;  /* timed calls but the row's first (tap_stat.first_ns) */
    double bw_bytes, bw_busbytes; /* behind time_sum_ns, as in tap_stat */
    uint64_t unused;            /* to 64 bytes */
};
_Static_assert(sizeof(struct tap_site_stat) == 64, "an entry's size: see above");

/* The entry of (site, row); NULL without memory. */
struct tap_site_stat *tap_site_stats_find(uint16_t site, unsigned row);

/* The entries, for the caller that remembers one by index (a row's
 * tap_stat.site_hint, entry + 1): they move when the array grows. */
extern struct tap_site_stat *tap_site_entries;

/* Adds a timed call's time (the caller leaves out its row's first, kept
 * apart); its count is added by the caller. */
void tap_site_stat_add_time(struct tap_site_stat *s, const struct tap_timing *t);

unsigned tap_site_stats_count(void);
const struct tap_site_stat *tap_site_stats_at(unsigned i);

/* In a forked child, with tap_stats_reset. */
void tap_site_stats_reset(void);

#endif
