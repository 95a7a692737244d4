#include "reducer/graph_exec.h"

#include <stdint.h>

#include "state/graph_table.h"
#include "stats/stats.h"

/* The launches of s not counted yet, into its ops' rows. */
static void count(struct tap_graph_slot *s, void *arg)
{
    (void)arg;
    uint64_t launches = atomic_load_explicit(&s->launches, memory_order_acquire);
    uint64_t n = launches - s->counted;
    if (!n)
        return;
    s->counted = launches;
    for (uint32_t k = 0; k < s->nops; k++)
        tap_stats_record_executions(&s->ops[k].rec, n);
}

void tap_graph_exec_count(void)
{
    tap_graph_each_live(count, NULL);
    tap_graph_reap(count, NULL);
}

void tap_graph_exec_reap(void)
{
    tap_graph_reap(count, NULL);
}
