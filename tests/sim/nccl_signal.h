/* One-sided signals (ncclPutSignal, ncclSignal, ncclWaitSignal): when each
 * signal arrives, and when a wait may end.
 *
 * A communicator's segment holds a board: per ordered pair of ranks
 * (from, to), a ring of SIM_SIGNAL_RING slots, one per signal `from` has
 * sent `to`, counted from 0 by the sender at launch. A put or a signal
 * publishes its slot when its stream begins it: it arrives at its end
 * (start + duration). A wait for k more signals from a peer needs its
 * receiver's next k signals from that peer (counted by the receiver at
 * launch), and begins when the last of them has arrived, no earlier than
 * its own stream could begin it: its event interval is the time the
 * waiter waited. A wait whose signal is never sent never begins (a hang,
 * until ncclCommAbort). */
#ifndef NCCLSIM_NCCL_SIGNAL_H
#define NCCLSIM_NCCL_SIGNAL_H

#include <stddef.h>
#include "nccl_internal.h"
#include "sim_cuda_private.h"

/* Communicators above this many ranks have no board: their one-sided
 * calls are refused (ncclInvalidUsage). */
#define SIM_SIGNAL_MAX_RANKS 64
/* Signals from one rank to another that may be sent ahead of the waits
 * for them: a wait for a signal whose slot a later one took begins at
 * once (not modelled further). */
#define SIM_SIGNAL_RING 64
/* Descriptors a simulated ncclWaitSignal takes (more: ncclInvalidUsage). */
#define SIM_WAIT_MAX_DESCS 8

/* The board's bytes in a segment of `nranks` ranks; 0 above the limit. */
size_t sim_signal_board_bytes(int nranks);

/* What a wait waits for: `count` more signals from `peer`. */
struct sim_wait {
    int peer, count;
};

struct sim_op;

/* Sets w's gate for one-sided op `op`, launched now on its rank: numbers
 * its signals (a put's or signal's one, a wait's awaited ones).
 * ncclSystemError if out of memory. */
ncclResult_t sim_signal_gate(const struct sim_op *op, struct ncclsim_work *w);

#endif
