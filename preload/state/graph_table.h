/* CUDA graphs that hold captured NCCL ops, and their executable graphs'
 * launch counts: what the capture path and the graph wrappers
 * (entry/graph_hooks.c) write, and the reducer reads to count and time
 * each captured op's executions.
 *
 * A graph is known by its handle and the id of the capture that built it
 * (unique in the process), since a handle is reused once destroyed. An
 * executable graph that runs captured ops has a slot: a copy of its
 * graph's captured ops and its launch count. Instantiate opens one;
 * cuGraphExecUpdate retires the exec's slot and opens one for the new
 * graph; cuGraphExecDestroy retires it. A retired slot keeps its count
 * until the reducer has counted its last launches (tap_graph_reap), and
 * is freed at the reducer's next reap: its place in the table is free at
 * once, so that an exec updated or re-instantiated any number of times is
 * followed all along. At most TAP_GRAPH_SLOTS executable graphs are
 * followed at once; an instantiation or update past that (or, far less
 * likely, one whose two buckets of the table are both full) is counted in
 * tap_graph_untracked and its launches are not counted.
 *
 * Threads: capture, instantiate, update and destroy (cold: once per graph)
 * take a mutex that only they and the reducer's reap take; finding a
 * launch's slot and counting the launch (each replay) is lock-free: a scan
 * of two buckets of the table and an atomic add (a timed launch also takes
 * its slot's launch_lock, graph_hooks.c). The reducer reads live slots
 * without the lock. */
#ifndef NCCLTAP_GRAPH_TABLE_H
#define NCCLTAP_GRAPH_TABLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/op_record.h"

struct tap_event;

/* Executable graphs with captured ops followed at once. */
#define TAP_GRAPH_SLOTS 4096

/* A captured op: its record as captured and, when its executions are
 * timed (NCCLTAP_GRAPH_TIMING=all), the event-record nodes nccltap
 * captured around it (CUgraphNode handles of the graph it was captured
 * into; NULL: not timed) with the events they were captured with: the
 * "scratch" pair, recorded by a launch that has no fresh pair for them,
 * and never read. */
struct tap_graph_op {
    struct tap_op_rec rec;
    void *start_node, *end_node;
    void *scratch_start, *scratch_end; /* CUevent */
};

/* One executable graph running one graph's captured ops (an update
 * starts a new slot). Allocated; freed by the reducer once retired and
 * counted. */
struct tap_graph_slot {
    /* The ops of the graph it runs, with the nodes of the graph the exec
     * was instantiated from (cuGraphExecEventRecordNodeSetEvent names
     * nodes so; an update pairs them by position). */
    const struct tap_graph_op *ops;
    uint32_t nops;
    bool timed;                  /* some op has nodes */
    const void *origin;          /* the graph the exec was instantiated from, when timed */
    /* When timed: held from pointing the nodes at fresh events to the
     * launch's records, so that two threads launching the exec at once
     * cannot record into each other's events (the driver serializes the
     * launches too); and that launch's events, 2 per op (NULL: none). */
    pthread_mutex_t launch_lock;
    struct tap_event **ev;
    _Atomic uint64_t launches;   /* successful cuGraphLaunch calls */
    uint64_t counted;            /* reducer only: launches counted into the ops' rows */
    struct tap_graph_slot *next; /* retired, waiting for the reducer (the table's lock) */
};

/* Instantiations and updates whose launches are not counted: no room in
 * the table (TAP_GRAPH_SLOTS followed already). */
extern _Atomic uint64_t tap_graph_untracked;
/* Executions that were to be timed and are not (no event free, the queue
 * full, the driver refused to set an event): counted, without a time. */
extern _Atomic uint64_t tap_graph_untimed;

/* Capture path: `op` (copied) was captured into `graph` by capture
 * `capture_id`. */
void tap_graph_note_capture(const void *graph, uint64_t capture_id, const struct tap_graph_op *op);

/* cuGraphDestroy. True when the destruction must wait: an executable graph
 * instantiated from it is timed through its nodes; tap_graph_exec_destroyed
 * hands it back when the last one goes. Otherwise the handle may name
 * another graph from now on. */
bool tap_graph_forget(const void *graph);

/* cuGraphInstantiate* succeeded: `exec` runs `graph`. Nothing is kept when
 * the graph holds no captured op. */
void tap_graph_instantiated(const void *exec, const void *graph);

/* cuGraphExecUpdate succeeded: `exec` now runs `graph`. */
void tap_graph_updated(const void *exec, const void *graph);

/* cuGraphExecDestroy. Returns a graph whose destruction waited for this
 * exec (the caller destroys it now), else NULL. */
const void *tap_graph_exec_destroyed(const void *exec);

/* The live slot of `exec`, NULL when it runs no captured op. Lock-free. */
struct tap_graph_slot *tap_graph_slot_of(const void *exec);

/* cuGraphLaunch of `s` succeeded: its launch number, from 1, which is
 * each of its ops' execution number (a slot is an exec with one graph's
 * ops: an update starts a new one). */
uint64_t tap_graph_launched(struct tap_graph_slot *s);

/* Reducer: fn(s, arg) for each live slot. A slot retired meanwhile may
 * be among them: it stays allocated until the reducer's own reap. */
void tap_graph_each_live(void (*fn)(struct tap_graph_slot *s, void *arg), void *arg);

/* Reducer: fn(s, arg) for each slot retired since the last call, to count
 * its last launches; frees the slots handed over at the call before (a
 * launch that found a slot just before it was retired has had a pass to
 * finish). One atomic load when none was retired. */
void tap_graph_reap(void (*fn)(struct tap_graph_slot *s, void *arg), void *arg);

/* In a forked child: the parent's graphs are not the child's. */
void tap_graph_reset(void);

#endif
