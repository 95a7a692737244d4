/* CUDA graphs that hold captured NCCL ops, and their executable graphs'
 * launch counts: what the graph wrappers (entry/graph_hooks.c) and the
 * capture path write, and the reducer reads to count each captured op's
 * executions.
 *
 * A graph is known by the capture id the driver gave the capture that
 * built it (unique in the process, never 0), since a graph handle is
 * reused once destroyed. An executable graph has one slot per (exec,
 * graph) it ran: instantiate opens one, cuGraphExecUpdate retires it and
 * opens one for the new graph, cuGraphExecDestroy retires it. A retired
 * slot keeps its count until the reducer has read it; slots are never
 * reused (TAP_GRAPH_SLOTS in all; past that, instantiations are counted
 * in tap_graph_untracked and their launches are not counted).
 *
 * Threads: capture, instantiate, update and destroy (cold: once per graph)
 * take a mutex that only they take; launch (each replay) is lock-free: one
 * hash probe and an atomic add. The reducer reads slots without the lock. */
#ifndef NCCLTAP_GRAPH_TABLE_H
#define NCCLTAP_GRAPH_TABLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define TAP_GRAPH_SLOTS 4096

struct tap_graph_slot {
    _Atomic(const void *) exec;  /* NULL: never used */
    uint64_t graph_id;           /* the capture id of the graph it runs */
    uint32_t nops;               /* captured ops that graph holds */
    _Atomic uint64_t launches;   /* successful cuGraphLaunch calls */
    _Atomic bool retired;        /* no launch is counted here any more */
};

/* Instantiations whose launches are not counted: no slot was free. */
extern _Atomic uint64_t tap_graph_untracked;

/* Capture path: an op was captured into `graph` by capture `capture_id`. */
void tap_graph_note_capture(const void *graph, uint64_t capture_id);

/* cuGraphDestroy: the handle may name another graph from now on. */
void tap_graph_forget(const void *graph);

/* cuGraphInstantiate* succeeded: `exec` runs `graph`. Nothing is kept when
 * the graph holds no captured op. */
void tap_graph_instantiated(const void *exec, const void *graph);

/* cuGraphExecUpdate succeeded: `exec` now runs `graph`. */
void tap_graph_updated(const void *exec, const void *graph);

/* cuGraphExecDestroy. */
void tap_graph_exec_destroyed(const void *exec);

/* cuGraphLaunch succeeded. Returns the slot (for the replay number) or
 * NULL when the exec runs no captured op. Lock-free. */
struct tap_graph_slot *tap_graph_launched(const void *exec);

/* Reducer: slots in use are [0, tap_graph_slots_used()); read `launches`
 * with acquire. */
unsigned tap_graph_slots_used(void);
struct tap_graph_slot *tap_graph_slot_at(unsigned i);

/* In a forked child: the parent's graphs are not the child's. */
void tap_graph_reset(void);

#endif
