/* What the hang watchdog (reducer/hang.c) leaves: NCCLTAP_DIR/
 * nccltap-<run>@<host>-<pid>.hang.json, replaced whole as the rank file is
 * (README, Outputs, has its fields), and one short line on stderr when
 * the watchdog asks (tap_hang.say). */
#ifndef NCCLTAP_HANG_FILE_H
#define NCCLTAP_HANG_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "state/comm_registry.h"

/* An op of a burst between two marks (TAP_OPF_BETWEEN) still waiting: not
 * known to be the one waited in, but what was called at its seq, which
 * the report names the stuck op by where the rank that did not call it is
 * the culprit. */
struct tap_hang_call {
    uint64_t seq, bytes;
    uint8_t op;                  /* enum tap_op */
    int32_t dtype, redop, peer;  /* as the op record has them (-1: none) */
};

/* The newest of those kept per communicator: a rank goes on issuing
 * after the op another rank never called only until its program waits
 * for its GPU (at the latest at the end of its step), while the last op
 * known complete may be any number of ops behind (a mark interval's: on
 * the simulator, 17 ops before the stuck one with NCCLTAP_POLL_US=20000). */
#define TAP_HANG_BETWEEN_MAX 32

/* One communicator's state when the watchdog fired. */
struct tap_hang_comm {
    const struct tap_comm *comm;
    uint64_t issued;          /* ops issued on it (the next seq) */
    uint64_t done_seq;        /* seq + 1 of the latest timed op completed, 0: none */
    bool pending;             /* it has a timed op not complete, or (timed false)
                                 its last op was untimed and the process quiet: */
    bool timed;               /* true: the oldest timed op not complete; false:
                                 the last op issued, not timed */
    uint64_t seq, bytes;      /* the oldest one */
    uint8_t op;               /* enum tap_op */
    int32_t dtype, redop, peer;  /* as the op record has them (-1: none) */
    uint16_t site;            /* its call site (state/callsite.h), 0: none */
    bool started;             /* its GPU start event has completed (timed only) */
    uint64_t enqueue_ns;      /* when it was issued, CLOCK_MONOTONIC */
    uint64_t age_ns;          /* since then */
    struct tap_hang_call between[TAP_HANG_BETWEEN_MAX];  /* by seq */
    unsigned nbetween;
};

/* What the watchdog saw: every communicator, and the oldest pending op of
 * all (stuck: an index into comms). */
struct tap_hang {
    struct tap_hang_comm *comms;
    unsigned ncomms;
    unsigned stuck;
    uint64_t timeout_ns;
    unsigned reports;         /* how many times it fired in this hang, from 1 */
    bool say;                 /* print the stderr line too: at the first report,
                                 and when the wait has doubled since the last line */
};


void tap_hang_file_write(const struct tap_hang *h);

#endif
