#include "reducer/graph_exec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "state/graph_table.h"
#include "state/shared.h"
#include "stats/stats.h"

/* Every captured op seen, in the order they came: few (once per capture),
 * scanned per slot that launched since the last count. */
static struct tap_op_rec *ops;
static unsigned nops, ops_cap;
/* Launches of each slot already counted. */
static uint64_t counted[TAP_GRAPH_SLOTS];

void tap_graph_exec_note_op(const struct tap_op_rec *op)
{
    if (!op->graph_id)
        return;
    if (nops == ops_cap) {
        unsigned cap = ops_cap ? 2 * ops_cap : 64;
        struct tap_op_rec *grown = realloc(ops, cap * sizeof *grown);
        if (!grown) {
            tap_note_no_memory("a captured op (its executions are not counted)");
            return;
        }
        ops = grown;
        ops_cap = cap;
    }
    ops[nops++] = *op;
}

static unsigned ops_of(uint64_t graph_id)
{
    unsigned n = 0;
    for (unsigned i = 0; i < nops; i++)
        n += ops[i].graph_id == graph_id;
    return n;
}

void tap_graph_exec_count(bool final)
{
    unsigned used = tap_graph_slots_used();
    for (unsigned i = 0; i < used; i++) {
        const struct tap_graph_slot *s = tap_graph_slot_at(i);
        uint64_t launches = atomic_load_explicit(&s->launches, memory_order_acquire);
        uint64_t n = launches - counted[i];
        if (!n || (!final && ops_of(s->graph_id) < s->nops))
            continue;
        counted[i] = launches;
        for (unsigned k = 0; k < nops; k++)
            if (ops[k].graph_id == s->graph_id)
                tap_stats_record_executions(&ops[k], n);
    }
}

void tap_graph_exec_reset(void)
{
    ops = NULL; /* the parent's, left allocated */
    nops = ops_cap = 0;
    memset(counted, 0, sizeof counted);
}
