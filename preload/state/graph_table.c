#include "state/graph_table.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "state/shared.h"

/* The executable graphs followed, found by their handle without a lock:
 * an exec lives in one of two buckets (two hashes of its handle), in
 * whichever had more room when it came, so that no bucket overflows while
 * the table is at most half full (TAP_GRAPH_SLOTS of twice as many
 * places). A lookup scans both buckets; a place is emptied when its exec
 * goes, with nothing else to move, so places are taken again for ever. */
#define BUCKET_WIDTH 16
#define NBUCKETS (2 * TAP_GRAPH_SLOTS / BUCKET_WIDTH) /* a power of two */

struct place {
    _Atomic(const void *) exec;  /* NULL: empty */
    _Atomic(struct tap_graph_slot *) slot;
};

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

static struct place table[NBUCKETS][BUCKET_WIDTH]; /* written under lock */
static _Atomic unsigned nlive;                       /* places taken; written under lock */
/* Slots retired, not yet handed to the reducer: pushed under lock, taken
 * by tap_graph_reap under lock; read without it only to see it is empty. */
static _Atomic(struct tap_graph_slot *) retired;
static struct tap_graph_slot *reaped; /* reducer only: counted, freed at its next reap */

_Atomic uint64_t tap_graph_untracked;
_Atomic uint64_t tap_graph_untimed;

/* The two buckets an exec may be in. */
static void buckets_of(const void *exec, unsigned b[2])
{
    uint64_t h = (uint64_t)(uintptr_t)exec * 0x9e3779b97f4a7c15ull;
    b[0] = (unsigned)(h >> 40) & (NBUCKETS - 1);
    b[1] = (unsigned)(h >> 20) & (NBUCKETS - 1);
    if (b[1] == b[0])
        b[1] = (b[0] + 1) & (NBUCKETS - 1);
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
    if (!exec)
        return NULL;
    unsigned b[2];
    buckets_of(exec, b);
    for (int k = 0; k < 2; k++)
        for (unsigned i = 0; i < BUCKET_WIDTH; i++) {
            struct place *p = &table[b[k]][i];
            if (atomic_load_explicit(&p->exec, memory_order_acquire) != exec)
                continue;
            struct tap_graph_slot *s = atomic_load_explicit(&p->slot, memory_order_acquire);
            /* Still exec's: the place was not emptied and taken again
             * between the two loads. */
            if (s && atomic_load_explicit(&p->exec, memory_order_relaxed) == exec)
                return s;
        }
    return NULL;
}

/* Lock held: exec's place, or NULL. */
static struct place *place_of(const void *exec)
{
    unsigned b[2];
    buckets_of(exec, b);
    for (int k = 0; k < 2; k++)
        for (unsigned i = 0; i < BUCKET_WIDTH; i++)
            if (atomic_load_explicit(&table[b[k]][i].exec, memory_order_relaxed) == exec)
                return &table[b[k]][i];
    return NULL;
}

/* Lock held: an empty place for exec in the emptier of its buckets, or
 * NULL when TAP_GRAPH_SLOTS are followed or both buckets are full. */
static struct place *free_place(const void *exec)
{
    if (nlive >= TAP_GRAPH_SLOTS)
        return NULL;
    unsigned b[2];
    buckets_of(exec, b);
    struct place *best = NULL;
    unsigned best_free = 0;
    for (int k = 0; k < 2; k++) {
        struct place *first = NULL;
        unsigned nfree = 0;
        for (unsigned i = 0; i < BUCKET_WIDTH; i++)
            if (!atomic_load_explicit(&table[b[k]][i].exec, memory_order_relaxed)) {
                first = first ? first : &table[b[k]][i];
                nfree++;
            }
        if (nfree > best_free) {
            best = first;
            best_free = nfree;
        }
    }
    return best;
}

/* Lock held: p, empty, holds exec's slot s. Release: a launch or the
 * reducer that sees the exec (or the slot) sees the slot whole. */
static void take_place(struct place *p, const void *exec, struct tap_graph_slot *s)
{
    atomic_store_explicit(&p->slot, s, memory_order_release);
    atomic_store_explicit(&p->exec, exec, memory_order_release);
    nlive++;
}

/* Lock held: p is empty again. */
static void empty_place(struct place *p)
{
    atomic_store_explicit(&p->exec, NULL, memory_order_release);
    atomic_store_explicit(&p->slot, NULL, memory_order_release);
    nlive--;
}

/* Lock held: s waits for the reducer to count its last launches; it
 * stays allocated (and readable) until then. */
static void retire(struct tap_graph_slot *s)
{
    s->next = atomic_load_explicit(&retired, memory_order_relaxed);
    atomic_store_explicit(&retired, s, memory_order_release);
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

/* Lock held: a slot for an exec running g (`graph`); for an update,
 * `prev` is the exec's slot before it, if it had one. NULL without
 * memory (said). */
static struct tap_graph_slot *new_slot(struct known_graph *g, const void *graph, bool update,
                                       const struct tap_graph_slot *prev)
{
    struct tap_graph_slot *s = calloc(1, sizeof *s);
    bool timed = false;
    const struct tap_graph_op *ops = s ? slot_ops(g, update, prev, &timed) : NULL;
    if (!ops) {
        free(s);
        tap_note_no_memory("CUDA graphs: an executable graph's launches are not counted");
        return NULL;
    }
    s->ops = ops;
    s->nops = g->nops;
    s->timed = timed;
    pthread_mutex_init(&s->launch_lock, NULL);
    s->ev = s->timed ? calloc(2 * (size_t)g->nops, sizeof *s->ev) : NULL;
    if (s->timed && !s->ev) {
        tap_note_no_memory("CUDA graphs: an executable graph's ops are counted, not timed");
        s->timed = false;
    }
    s->origin = update ? (prev ? prev->origin : NULL) : s->timed ? graph : NULL;
    if (!update && s->origin)
        g->live_execs++;
    return s;
}

static void free_slot(struct tap_graph_slot *s)
{
    pthread_mutex_destroy(&s->launch_lock);
    free((void *)s->ops);
    free(s->ev);
    free(s);
}

/* Lock held: `exec` runs `graph` from now on (an update when `update`);
 * `p` is its place, NULL if it has none. Its slot before, if any, is
 * retired; it keeps the place while it runs captured ops. */
static void follow(const void *exec, const void *graph, bool update, struct place *p)
{
    struct tap_graph_slot *prev = p ? atomic_load_explicit(&p->slot, memory_order_relaxed) : NULL;
    struct known_graph *g = find_graph(graph);
    struct tap_graph_slot *s = NULL;
    if (g && g->nops) {
        if (!p && !(p = free_place(exec)))
            atomic_fetch_add_explicit(&tap_graph_untracked, 1, memory_order_relaxed);
        else
            s = new_slot(g, graph, update, prev);
    }
    if (s && atomic_load_explicit(&p->exec, memory_order_relaxed) == exec)
        atomic_store_explicit(&p->slot, s, memory_order_release); /* an update: the same place */
    else if (s)
        take_place(p, exec, s);
    else if (p && prev)
        empty_place(p); /* runs no captured op now */
    if (prev)
        retire(prev);
}

void tap_graph_instantiated(const void *exec, const void *graph)
{
    pthread_mutex_lock(&lock);
    struct place *p = place_of(exec);
    if (p) { /* a handle reused without our seeing its destroy */
        retire(atomic_load_explicit(&p->slot, memory_order_relaxed));
        empty_place(p);
    }
    follow(exec, graph, false, NULL);
    pthread_mutex_unlock(&lock);
}

void tap_graph_updated(const void *exec, const void *graph)
{
    pthread_mutex_lock(&lock);
    follow(exec, graph, true, place_of(exec));
    pthread_mutex_unlock(&lock);
}

const void *tap_graph_exec_destroyed(const void *exec)
{
    const void *destroy = NULL;
    pthread_mutex_lock(&lock);
    struct place *p = place_of(exec);
    struct tap_graph_slot *s = p ? atomic_load_explicit(&p->slot, memory_order_relaxed) : NULL;
    if (p) {
        empty_place(p);
        retire(s);
    }
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

void tap_graph_each_live(void (*fn)(struct tap_graph_slot *s, void *arg), void *arg)
{
    /* Most processes never follow a graph: no scan of the places then. */
    if (!atomic_load_explicit(&nlive, memory_order_acquire))
        return;
    for (unsigned b = 0; b < NBUCKETS; b++)
        for (unsigned i = 0; i < BUCKET_WIDTH; i++) {
            struct tap_graph_slot *s = atomic_load_explicit(&table[b][i].slot, memory_order_acquire);
            if (s)
                fn(s, arg);
        }
}

void tap_graph_reap(void (*fn)(struct tap_graph_slot *s, void *arg), void *arg)
{
    while (reaped) {
        struct tap_graph_slot *next = reaped->next;
        free_slot(reaped);
        reaped = next;
    }
    if (!atomic_load_explicit(&retired, memory_order_acquire))
        return;
    pthread_mutex_lock(&lock);
    struct tap_graph_slot *list = atomic_load_explicit(&retired, memory_order_relaxed);
    atomic_store_explicit(&retired, NULL, memory_order_relaxed);
    pthread_mutex_unlock(&lock);
    for (struct tap_graph_slot *s = list; s; s = s->next)
        fn(s, arg);
    reaped = list;
}

void tap_graph_reset(void)
{
    pthread_mutex_init(&lock, NULL);
    graphs = NULL; /* the parent's, left allocated, as its slots are */
    ngraphs = graphs_cap = 0;
    memset(table, 0, sizeof table);
    nlive = 0;
    atomic_store(&retired, NULL);
    reaped = NULL;
}
