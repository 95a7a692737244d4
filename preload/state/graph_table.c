#include "state/graph_table.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "state/shared.h"

#define INDEX_SLOTS (2 * TAP_GRAPH_SLOTS) /* a power of two, half full at most */

/* A graph being or having been captured into, until cuGraphDestroy (or,
 * when that waits, until its last timed exec is destroyed). */
struct known_graph {
    const void *graph;
    uint64_t id;
    struct tap_graph_op *ops;    /* nops of them, in capture order */
    uint32_t nops, ops_cap;
    uint32_t live_execs;            /* timed execs instantiated from it */
    bool destroy_pending;           /* cuGraphDestroy came while they lived */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct known_graph *graphs; /* under lock */
static unsigned ngraphs, graphs_cap;

static struct tap_graph_slot slots[TAP_GRAPH_SLOTS];
static _Atomic unsigned nslots;
static _Atomic uint32_t index_of[INDEX_SLOTS]; /* hash of exec -> slot + 1 */

_Atomic uint64_t tap_graph_untracked;
_Atomic uint64_t tap_graph_untimed;

static unsigned hash(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return (unsigned)(h >> 40) & (INDEX_SLOTS - 1);
}

static struct known_graph *find_graph(const void *graph)
{
    for (unsigned i = 0; i < ngraphs; i++)
        if (graphs[i].graph == graph)
            return &graphs[i];
    return NULL;
}

static void drop_graph(struct known_graph *g)
{
    free(g->ops);
    *g = graphs[--ngraphs];
}

/* Lock held: the graph's entry, made when new; NULL without memory. */
static struct known_graph *graph_entry(const void *graph, uint64_t capture_id)
{
    struct known_graph *g = find_graph(graph);
    if (g && g->id != capture_id) { /* a handle reused without our seeing its destroy */
        drop_graph(g);
        g = NULL;
    }
    if (g)
        return g;
    if (ngraphs == graphs_cap) {
        unsigned cap = graphs_cap ? 2 * graphs_cap : 16;
        struct known_graph *grown = realloc(graphs, cap * sizeof *grown);
        if (!grown)
            return NULL;
        graphs = grown;
        graphs_cap = cap;
    }
    g = &graphs[ngraphs++];
    *g = (struct known_graph){.graph = graph, .id = capture_id};
    return g;
}

static bool add_op(struct known_graph *g, const struct tap_graph_op *op)
{
    if (g->nops == g->ops_cap) {
        uint32_t cap = g->ops_cap ? 2 * g->ops_cap : 8;
        struct tap_graph_op *grown = realloc(g->ops, cap * sizeof *grown);
        if (!grown)
            return false;
        g->ops = grown;
        g->ops_cap = cap;
    }
    g->ops[g->nops++] = *op;
    return true;
}

void tap_graph_note_capture(const void *graph, uint64_t capture_id, const struct tap_graph_op *op)
{
    pthread_mutex_lock(&lock);
    struct known_graph *g = graph_entry(graph, capture_id);
    if (!g || !add_op(g, op))
        tap_note_no_memory("CUDA graphs: a captured op's executions are not counted");
    pthread_mutex_unlock(&lock);
}

bool tap_graph_forget(const void *graph)
{
    pthread_mutex_lock(&lock);
    struct known_graph *g = find_graph(graph);
    bool wait = g && g->live_execs > 0;
    if (wait)
        g->destroy_pending = true;
    else if (g)
        drop_graph(g);
    pthread_mutex_unlock(&lock);
    return wait;
}

struct tap_graph_slot *tap_graph_slot_of(const void *exec)
{
    for (unsigned h = hash(exec);; h = (h + 1) & (INDEX_SLOTS - 1)) {
        uint32_t i = atomic_load_explicit(&index_of[h], memory_order_acquire);
        if (!i)
            return NULL;
        struct tap_graph_slot *s = &slots[i - 1];
        if (atomic_load_explicit(&s->exec, memory_order_relaxed) == exec &&
            !atomic_load_explicit(&s->retired, memory_order_relaxed))
            return s;
    }
}

/* Lock held: retires the live slot of `exec`, returned (NULL if none). */
static struct tap_graph_slot *retire(const void *exec)
{
    struct tap_graph_slot *s = tap_graph_slot_of(exec);
    if (s)
        atomic_store_explicit(&s->retired, true, memory_order_relaxed);
    return s;
}

/* Lock held: a copy of g's ops for a slot (g may go before the slot),
 * with the nodes of `prev`'s ops for an update (the exec's nodes are still
 * named by the first graph's): an update from a graph whose ops nccltap
 * does not know, or has another number of, leaves them untimed. */
static const struct tap_graph_op *slot_ops(const struct known_graph *g, bool update,
                                           const struct tap_graph_slot *prev, bool *timed)
{
    *timed = false;
    struct tap_graph_op *ops = malloc(g->nops * sizeof *ops);
    if (!ops)
        return NULL;
    bool same = prev && prev->nops == g->nops;
    for (uint32_t i = 0; i < g->nops; i++) {
        ops[i] = g->ops[i];
        if (update) {
            ops[i].start_node = same ? prev->ops[i].start_node : NULL;
            ops[i].end_node = same ? prev->ops[i].end_node : NULL;
        }
        *timed |= ops[i].start_node != NULL;
    }
    return ops;
}

/* Lock held: a slot for `exec` running `graph`, if it holds captured ops;
 * for an update, `prev` is the exec's slot before it, if it had one. */
static void open_slot(const void *exec, const void *graph, bool update, const struct tap_graph_slot *prev)
{
    struct known_graph *g = find_graph(graph);
    if (!g || !g->nops)
        return;
    unsigned n = atomic_load_explicit(&nslots, memory_order_relaxed);
    if (n == TAP_GRAPH_SLOTS) {
        atomic_fetch_add_explicit(&tap_graph_untracked, 1, memory_order_relaxed);
        return;
    }
    struct tap_graph_slot *s = &slots[n];
    s->ops = slot_ops(g, update, prev, &s->timed);
    if (!s->ops) {
        tap_note_no_memory("CUDA graphs: an executable graph's launches are not counted");
        return;
    }
    s->nops = g->nops;
    pthread_mutex_init(&s->launch_lock, NULL);
    s->ev = s->timed ? calloc(2 * (size_t)g->nops, sizeof *s->ev) : NULL;
    if (s->timed && !s->ev) {
        tap_note_no_memory("CUDA graphs: an executable graph's ops are counted, not timed");
        s->timed = false;
    }
    s->origin = update ? (prev ? prev->origin : NULL) : s->timed ? graph : NULL;
    if (!update && s->origin)
        g->live_execs++;
    atomic_store_explicit(&s->launches, 0, memory_order_relaxed);
    atomic_store_explicit(&s->retired, false, memory_order_relaxed);
    atomic_store_explicit(&s->exec, exec, memory_order_relaxed);
    unsigned h = hash(exec);
    while (atomic_load_explicit(&index_of[h], memory_order_relaxed))
        h = (h + 1) & (INDEX_SLOTS - 1);
    /* Release: a launch or the reducer that sees the index sees the slot. */
    atomic_store_explicit(&index_of[h], n + 1, memory_order_release);
    atomic_store_explicit(&nslots, n + 1, memory_order_release);
}

void tap_graph_instantiated(const void *exec, const void *graph)
{
    pthread_mutex_lock(&lock);
    retire(exec); /* a handle reused without our seeing its destroy */
    open_slot(exec, graph, false, NULL);
    pthread_mutex_unlock(&lock);
}

void tap_graph_updated(const void *exec, const void *graph)
{
    pthread_mutex_lock(&lock);
    const struct tap_graph_slot *prev = retire(exec);
    open_slot(exec, graph, true, prev);
    pthread_mutex_unlock(&lock);
}

const void *tap_graph_exec_destroyed(const void *exec)
{
    const void *destroy = NULL;
    pthread_mutex_lock(&lock);
    const struct tap_graph_slot *s = retire(exec);
    struct known_graph *g = s && s->origin ? find_graph(s->origin) : NULL;
    if (g && g->live_execs && --g->live_execs == 0 && g->destroy_pending) {
        destroy = g->graph;
        drop_graph(g);
    }
    pthread_mutex_unlock(&lock);
    return destroy;
}

uint64_t tap_graph_launched(struct tap_graph_slot *s)
{
    return atomic_fetch_add_explicit(&s->launches, 1, memory_order_release) + 1;
}

unsigned tap_graph_slots_used(void)
{
    return atomic_load_explicit(&nslots, memory_order_acquire);
}

const struct tap_graph_slot *tap_graph_slot_at(unsigned i)
{
    return &slots[i];
}

void tap_graph_reset(void)
{
    pthread_mutex_init(&lock, NULL);
    graphs = NULL; /* the parent's, left allocated */
    ngraphs = graphs_cap = 0;
    memset(slots, 0, sizeof slots);
    memset(index_of, 0, sizeof index_of);
    atomic_store(&nslots, 0);
}
