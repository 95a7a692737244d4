#include "stats/site_stats.h"

#include <stdlib.h>
#include <string.h>

/* Entries in an array, found through an open-addressing index that doubles
 * when half full, as in stats.c. */
struct tap_site_stat *tap_site_entries;
static unsigned nentries, entries_cap;
static unsigned *index_of; /* slot -> entry index + 1, 0 empty */
static unsigned index_slots;

static unsigned key_hash(uint16_t site, unsigned row)
{
    uint64_t h = ((uint64_t)site << 32 | row) * 0x9e3779b97f4a7c15ull;
    return (unsigned)(h >> 32);
}

static int grow_index(void)
{
    unsigned slots = index_slots ? index_slots * 2 : 256;
    unsigned *idx = calloc(slots, sizeof *idx);
    if (!idx)
        return -1;
    for (unsigned e = 0; e < nentries; e++) {
        unsigned i = key_hash(tap_site_entries[e].site, tap_site_entries[e].row) & (slots - 1);
        while (idx[i])
            i = (i + 1) & (slots - 1);
        idx[i] = e + 1;
    }
    free(index_of);
    index_of = idx;
    index_slots = slots;
    return 0;
}

struct tap_site_stat *tap_site_stats_find(uint16_t site, unsigned row)
{
    if (2 * (nentries + 1) > index_slots && grow_index() != 0)
        return NULL;
    unsigned i = key_hash(site, row) & (index_slots - 1);
    for (; index_of[i]; i = (i + 1) & (index_slots - 1)) {
        struct tap_site_stat *s = &tap_site_entries[index_of[i] - 1];
        if (s->site == site && s->row == row)
            return s;
    }
    if (nentries == entries_cap) {
        unsigned cap = entries_cap ? entries_cap * 2 : 64;
        struct tap_site_stat *grown = realloc(tap_site_entries, cap * sizeof *grown);
        if (!grown)
            return NULL;
        tap_site_entries = grown;
        entries_cap = cap;
    }
    struct tap_site_stat *s = &tap_site_entries[nentries];
    memset(s, 0, sizeof *s);
    s->site = site;
    s->row = row;
    index_of[i] = ++nentries;
    return s;
}

unsigned tap_site_stats_count(void) { return nentries; }

const struct tap_site_stat *tap_site_stats_at(unsigned i) { return &tap_site_entries[i]; }

void tap_site_stats_reset(void)
{
    /* As tap_stats_reset: the child starts empty, the parent's arrays stay. */
    tap_site_entries = NULL;
    nentries = entries_cap = 0;
    index_of = NULL;
    index_slots = 0;
}
