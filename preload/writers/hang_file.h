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

/* Those kept per communicator: the oldest and the newest, this many of
 * each. The stuck op lies between the last op known complete and the
 * last issued: after the first by up to a mark interval's ops (on the
 * simulator, 17 ops with NCCLTAP_POLL_US=20000), before the second by the
 * ops a rank issues until its program waits for its GPU (at the latest
 * at its step's end: hundreds under FSDP). */
#define TAP_HANG_BETWEEN_END 16
#define TAP_HANG_BETWEEN_MAX (2 * TAP_HANG_BETWEEN_END)

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
    /* Ops between marks still waiting, by seq: the oldest, the newest
     * (the two may hold the same ones). */
    struct tap_hang_call oldest[TAP_HANG_BETWEEN_END], newest[TAP_HANG_BETWEEN_END];
    unsigned noldest, nnewest;
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
