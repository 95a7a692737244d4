/* Statistics per call site, beside the rows of stats.h: one entry per
 * (call site, statistics row), so that a site's calls can be told apart by
 * communicator, op and size, and a row can name the sites it came from.
 * Owned by the reducer thread, like stats.h. The entry (struct
 * tap_site_stat) and how a call adds to it are in stat_row.h. */
#ifndef NCCLTAP_SITE_STATS_H
#define NCCLTAP_SITE_STATS_H

#include <stdint.h>

#include "stats/stats.h"

/* The entry of (site, row); NULL without memory. */
struct tap_site_stat *tap_site_stats_find(uint16_t site, unsigned row);

/* The entries, for the caller that remembers one by index (a row's
 * tap_stat.site_hint, entry + 1): they move when the array grows. */
extern struct tap_site_stat *tap_site_entries;

unsigned tap_site_stats_count(void);
const struct tap_site_stat *tap_site_stats_at(unsigned i);

/* In a forked child, with tap_stats_reset. */
void tap_site_stats_reset(void);

#endif
