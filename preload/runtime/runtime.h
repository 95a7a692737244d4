/* State shared by the hot path and the reducer, and their lifecycle. */
#ifndef NCCLTAP_RUNTIME_H
#define NCCLTAP_RUNTIME_H

#include <stdatomic.h>
#include <stdint.h>

struct mpmc_queue;

/* Counted on the hot path. Calls are counted per communicator (its
 * sequence number); tap_comm_total_calls() sums them. */
struct tap_totals {
    _Atomic uint64_t dropped;  /* records lost: the queue was full */
    _Atomic uint64_t untimed;  /* wanted timing, no event was free */
    _Atomic uint64_t captured; /* issued during CUDA graph capture */
};
extern struct tap_totals tap_totals;

/* This process, as the output names it. */
struct tap_process {
    char host[256];
    int pid;
    uint64_t start_mono_ns; /* when the shim was loaded (or the process forked) */
    uint64_t start_unix_ns;
};
extern struct tap_process tap_process;

/* Op records to the reducer; NULL until the first communicator appears. */
extern struct mpmc_queue *_Atomic tap_ring;

/* Advanced by the reducer every NCCLTAP_INTERVAL_MS; the timing policy
 * times at least one op per key in each. */
extern _Atomic uint32_t tap_interval_no;

/* The one way in: reads the configuration and sets up this process (who
 * it is, fork handling), once and thread-safely, on first use from
 * whichever path comes first: the shim's constructor, or an NCCL call made
 * before it ran (from another library's constructor). */
void tap_bring_up(void);

/* Brings up (tap_bring_up), then creates the queue and starts the reducer
 * thread, once (cold path: the first communicator). Safe to call again. */
void tap_runtime_start(void);

/* At exit: lets the reducer finish within NCCLTAP_EXIT_WAIT_MS and write the
 * final output. Idempotent. */
void tap_runtime_stop(void);

#endif
