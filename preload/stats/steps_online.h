/* Training steps found while the job runs, per communicator, from its
 * calls alone (issue 35): the reducer hands each completed call over in
 * seq order; the last TAP_STEPS_WINDOW calls (op and size, the host's
 * time since the call before, the call's time) go through
 * stats/step_pattern.h, the report's algorithm, until a step is found;
 * from then each call at the step's first position closes a step. A
 * stretch whose calls no longer repeat at the period loses the step, and
 * it is looked for again; the count goes on.
 *
 * What a communicator's last whole step took is the host's time from its
 * first call to the next step's first call, and the time its calls ran on
 * the GPU (its NCCL time: the union of their intervals, which a stamped
 * call's may overlap). Only calls with a time complete (not under
 * NCCLTAP_TIMING=off); executions of captured calls are left out.
 *
 * Memory: the first TAP_STEPS_COMMS communicators created, about 20 KiB
 * each, allocated by the reducer at a communicator's first completed call;
 * without memory that communicator has no steps.
 *
 * Reducer thread only (its pass, and the snapshot it takes). */
#ifndef NCCLTAP_STEPS_ONLINE_H
#define NCCLTAP_STEPS_ONLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/op_record.h"
#include "state/comm_registry.h"

#define TAP_STEPS_WINDOW 1024  /* calls kept: 8 steps of 128 calls, 3 of 341 */
#define TAP_STEPS_COMMS 64

struct tap_comm_steps {
    uint32_t period;       /* calls a step; 0: no step found now */
    uint64_t steps;        /* whole steps seen, counted on from the first found */
    uint64_t last_ns;      /* the last whole step: its first call to the next's */
    uint64_t last_nccl_ns; /* the union of its calls' intervals */
};

/* A completed call of op->comm (not an execution of a captured one): it
 * ran from start_ns (CLOCK_MONOTONIC; 0 not known) for duration_ns. */
void tap_steps_online_add(const struct tap_op_rec *op, uint64_t start_ns, uint64_t duration_ns);

/* Communicator c's steps; false where it has none found or counted. */
bool tap_steps_online_get(const struct tap_comm *c, struct tap_comm_steps *out);

/* In a forked child: the parent's communicators are not its own. */
void tap_steps_online_reset(void);

#endif
