/* Every communicator the application creates, found from its handle on the
 * hot path without a lock. Entries are never freed: the reducer may still
 * hold records that point at a destroyed communicator. A destroyed handle
 * is retired, so that the address, when NCCL hands it out again, is a new
 * communicator. Past TAP_COMM_MAX communicators, or when a record cannot
 * be allocated, calls are counted in one communicator of their own, named
 * "(overflow)", origin "overflow": never in another's. */
#ifndef NCCLTAP_COMM_REGISTRY_H
#define NCCLTAP_COMM_REGISTRY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "abi/nccl_abi.h"
#include "nccl/nccl_ops.h"
#include "state/comm_config.h"

enum tap_comm_origin {
    TAP_ORIGIN_INIT, TAP_ORIGIN_INITALL, TAP_ORIGIN_CONFIG, TAP_ORIGIN_SCALABLE,
    TAP_ORIGIN_SPLIT, TAP_ORIGIN_SHRINK, TAP_ORIGIN_GROW, TAP_ORIGIN_UNREGISTERED,
    TAP_ORIGIN_OVERFLOW /* the "(overflow)" communicator: calls of those not registered */
};
enum tap_comm_state { TAP_COMM_ALIVE, TAP_COMM_FINALIZED, TAP_COMM_DESTROYED, TAP_COMM_ABORTED };

struct tap_event;

/* What `auto` knows of one (communicator, op, size class): sampling.h has
 * the rule. The hot path reads it and, at the class's first call and when
 * its learning window ends, writes it; the reducer sets the rate from this
 * rank's measured durations. */
/* Which ops of a (communicator, op, size class) get a precise pair under
 * NCCLTAP_TIMING=auto (state/sampling.h): set by the hot path from seqs
 * alone. */
struct tap_hint {
    /* 0: learning, the schedule from first_seq; k > 0: time the calls that
     * tap_sample_selected picks with shift k - 1 (1: every call). */
    _Atomic uint8_t rate;
    _Atomic uint8_t seen;           /* the first call was made: first_seq and aligned are set */
    uint8_t aligned;                /* tap_sample_aligned_shift of the class */
    uint64_t first_seq;             /* the class's first call */
};

struct tap_comm {
    ncclComm_t handle;
    uint64_t id;        /* the same on every rank of the communicator */
    uint64_t parent_id; /* 0 for a root communicator */
    char name[64];      /* ncclConfig_t.commName, "" if none */
    char gpu_uuid[48];  /* of its device, "" if unknown */
    int rank, nranks, device;
    unsigned creation;  /* order of creation in this process */
    /* Host time of the call that created it (init, split...), from its
     * start to its handle's appearing: connection set-up, bootstrap. 0 when
     * nccltap did not see the call. */
    uint64_t init_ns;
    uint64_t registered_ns; /* CLOCK_MONOTONIC when nccltap registered it */
    enum tap_comm_origin origin;
    _Atomic int state;           /* enum tap_comm_state */
    _Atomic uint64_t seq;        /* operations issued: the next op's number */
    _Atomic uint32_t children;   /* communicators split, shrunk or grown from it */
    uint64_t done_seq;           /* reducer only: seq + 1 of the latest timed op
                                    completed, 0 if none (the hang watchdog) */
    struct tap_hint hints[TAP_OP_COUNT][TAP_SIZE_CLASSES];
    /* CLOCK_MONOTONIC when a blocking ncclCommFinalize, ncclCommDestroy or
     * ncclCommAbort of it returned, 0 before: its ops had all ended by
     * then (NCCL flushes them; an abort stops them). After the fields of
     * every call, which keep their places. */
    _Atomic uint64_t ended_ns;
    struct tap_comm_config config; /* what its creation was given (none: given false) */
};

/* Communicators registered one by one; later ones are counted in (overflow). */
#define TAP_COMM_MAX 4096u

/* Registers a new communicator. config: the ncclConfig_t its creation was
 * given, as read (NULL: none). rank and nranks as the caller knows them, or
 * -1 to ask NCCL; the device is asked, and its UUID where GPU timing is up
 * (tap_gpu_init); init_ns as tap_comm.init_ns. Every field is set before
 * the record is published: the reducer reads them unlocked. Cold path (a
 * mutex and an allocation); the caller starts the runtime
 * (tap_runtime_start).
 * Returns the (overflow) communicator past TAP_COMM_MAX or when memory is
 * exhausted; never NULL. */
struct tap_comm *tap_comm_register(ncclComm_t handle, uint64_t id, uint64_t parent_id,
                                   enum tap_comm_origin origin, const char *name,
                                   const struct tap_comm_config *config, int rank, int nranks, uint64_t init_ns);

/* Advances whenever a communicator is registered: a cached lookup is valid
 * while it stays the same. */
extern _Atomic uint32_t tap_comm_generation;

/* The communicator registered for `handle`, or NULL (never registered, or
 * retired); never registers. */
struct tap_comm *tap_comm_find(ncclComm_t handle);

/* After ncclCommDestroy or ncclCommAbort: `handle` names no communicator
 * now, unless it already names another than c (a newer one); c stays, in
 * the outputs. Cold path. */
void tap_comm_retire(ncclComm_t handle, const struct tap_comm *c);


/* Stable snapshot for writers: communicator i of n, in creation order. */
unsigned tap_comm_count(void);
struct tap_comm *tap_comm_at(unsigned i);

/* A finalize, destroy or abort of c returned: its state is `state` from
 * now on (none for (overflow), which holds many). Returns whether no
 * registered communicator is alive any more (counted in (overflow), by
 * their number, ones are not followed). Cold path. */
bool tap_comm_end(struct tap_comm *c, enum tap_comm_state state);

/* Communicators counted in (overflow) because TAP_COMM_MAX were
 * registered already (those without memory are in tap_no_memory). */
uint64_t tap_comm_past_limit(void);

/* Operations issued on all communicators: every call that reached NCCL
 * took a sequence number. */
uint64_t tap_comm_total_calls(void);

/* In a forked child: the parent's communicators are not the child's. */
void tap_comm_registry_reset(void);
/* Around fork(): taken before, released after in parent and child. */
void tap_comm_registry_fork_lock(bool lock);

const char *tap_comm_origin_name(enum tap_comm_origin o);
const char *tap_comm_state_name(int state);

/* 64-bit FNV-1a, for communicator identities. */
uint64_t tap_hash(uint64_t h, const void *data, size_t len);
#define TAP_HASH_SEED 0xcbf29ce484222325ull

#endif
