#include "state/graph_table.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "state/shared.h"

#define INDEX_SLOTS (2 * TAP_GRAPH_SLOTS) /* a power of two, half full at most */

/* A graph being or having been captured into, until cuGraphDestroy. */
struct known_graph {
    const void *graph;
    uint64_t id;
    uint32_t nops;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct known_graph *graphs; /* under lock */
static unsigned ngraphs, graphs_cap;

static struct tap_graph_slot slots[TAP_GRAPH_SLOTS];
static _Atomic unsigned nslots;
static _Atomic uint32_t index_of[INDEX_SLOTS]; /* hash of exec -> slot + 1 */

_Atomic uint64_t tap_graph_untracked;

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

void tap_graph_note_capture(const void *graph, uint64_t capture_id)
{
    pthread_mutex_lock(&lock);
    struct known_graph *g = find_graph(graph);
    if (g && g->id != capture_id) { /* a handle reused without our seeing its destroy */
        g->id = capture_id;
        g->nops = 0;
    }
    if (!g && ngraphs == graphs_cap) {
        unsigned cap = graphs_cap ? 2 * graphs_cap : 16;
        struct known_graph *grown = realloc(graphs, cap * sizeof *grown);
        if (grown) {
            graphs = grown;
            graphs_cap = cap;
        }
    }
    if (!g && ngraphs < graphs_cap) {
        g = &graphs[ngraphs++];
        *g = (struct known_graph){graph, capture_id, 0};
    }
    if (g)
        g->nops++;
    else
        tap_note_no_memory("CUDA graphs: launches of this graph are not counted");
    pthread_mutex_unlock(&lock);
}

void tap_graph_forget(const void *graph)
{
    pthread_mutex_lock(&lock);
    struct known_graph *g = find_graph(graph);
    if (g)
        *g = graphs[--ngraphs];
    pthread_mutex_unlock(&lock);
}

/* The live slot of `exec`, or NULL. Lock-free. */
static struct tap_graph_slot *live_slot(const void *exec)
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

/* Lock held. */
static void retire(const void *exec)
{
    struct tap_graph_slot *s = live_slot(exec);
    if (s)
        atomic_store_explicit(&s->retired, true, memory_order_relaxed);
}

/* Lock held: a slot for `exec` running `graph`, if it holds captured ops. */
static void open_slot(const void *exec, const void *graph)
{
    const struct known_graph *g = find_graph(graph);
    if (!g)
        return;
    unsigned n = atomic_load_explicit(&nslots, memory_order_relaxed);
    if (n == TAP_GRAPH_SLOTS) {
        atomic_fetch_add_explicit(&tap_graph_untracked, 1, memory_order_relaxed);
        return;
    }
    struct tap_graph_slot *s = &slots[n];
    s->graph_id = g->id;
    s->nops = g->nops;
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
    open_slot(exec, graph);
    pthread_mutex_unlock(&lock);
}

void tap_graph_updated(const void *exec, const void *graph)
{
    tap_graph_instantiated(exec, graph);
}

void tap_graph_exec_destroyed(const void *exec)
{
    pthread_mutex_lock(&lock);
    retire(exec);
    pthread_mutex_unlock(&lock);
}

struct tap_graph_slot *tap_graph_launched(const void *exec)
{
    struct tap_graph_slot *s = live_slot(exec);
    if (s)
        atomic_fetch_add_explicit(&s->launches, 1, memory_order_release);
    return s;
}

unsigned tap_graph_slots_used(void)
{
    return atomic_load_explicit(&nslots, memory_order_acquire);
}

struct tap_graph_slot *tap_graph_slot_at(unsigned i)
{
    return &slots[i];
}

void tap_graph_reset(void)
{
    pthread_mutex_init(&lock, NULL);
    free(graphs);
    graphs = NULL;
    ngraphs = graphs_cap = 0;
    memset(slots, 0, sizeof slots);
    memset(index_of, 0, sizeof index_of);
    atomic_store(&nslots, 0);
}
