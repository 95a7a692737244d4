#include "reducer/graph_exec.h"

#include <stdint.h>
#include <string.h>

#include "state/graph_table.h"
#include "stats/stats.h"

/* Launches of each slot already counted. */
static uint64_t counted[TAP_GRAPH_SLOTS];

void tap_graph_exec_count(void)
{
    unsigned used = tap_graph_slots_used();
    for (unsigned i = 0; i < used; i++) {
        const struct tap_graph_slot *s = tap_graph_slot_at(i);
        uint64_t launches = atomic_load_explicit(&s->launches, memory_order_acquire);
        uint64_t n = launches - counted[i];
        if (!n)
            continue;
        counted[i] = launches;
        for (uint32_t k = 0; k < s->nops; k++)
            tap_stats_record_executions(&s->ops[k].rec, n);
    }
}

void tap_graph_exec_reset(void)
{
    memset(counted, 0, sizeof counted);
}
