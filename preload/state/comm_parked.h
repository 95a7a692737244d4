/* Communicators asked for but not there yet. ncclCommSplit, Shrink and
 * Grow set *newcomm only once the child exists: at the outermost
 * ncclGroupEnd when called in a group, later still on a non-blocking
 * communicator. Until then the child is parked here with the identity it
 * will have, and enrolled (entry/comm_enroll.c) when its handle appears,
 * whichever thread sees it first. Only the thread that parked a child
 * forgets it: groups are per thread, and another thread's group end says
 * nothing of this one's children.
 * Any thread; a mutex guards the table (cold path: communicator calls). */
#ifndef NCCLTAP_COMM_PARKED_H
#define NCCLTAP_COMM_PARKED_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "abi/nccl_abi.h"
#include "state/comm_config.h"
#include "state/comm_registry.h"

struct tap_parked {
    ncclComm_t *where;  /* where NCCL will write the handle */
    uint64_t start_ns;  /* when the call that asked for it began */
    uint64_t id, parent;
    enum tap_comm_origin origin;
    char name[64];      /* "" when none */
    struct tap_comm_config config;  /* read when it was asked for: the caller's struct may be gone */
    int rank, nranks;
    pthread_t owner;    /* the thread that parked it: set by tap_parked_add */
};

/* Parks a child (its name is copied) for the calling thread. Dropped when
 * the table is full. */
void tap_parked_add(const struct tap_parked *p);

/* Takes out the children whose handles have appeared, at most `max`, into
 * `born`; returns how many. With `forget_mine` (the calling thread's
 * outermost group has ended), the calling thread's children whose handle
 * is still NULL are dropped: NCCL said no child for this rank
 * (NCCL_SPLIT_NOCOLOR) or the group failed. */
unsigned tap_parked_take_born(struct tap_parked *born, unsigned max, bool forget_mine);

/* Whether any child is parked, without the lock: most group ends have
 * none to look for. */
bool tap_parked_any(void);

/* The table's capacity: `born` of this size takes every child. */
#define TAP_PARKED_MAX 256

/* Around fork(): taken before, released after in parent and child. */
void tap_parked_fork_lock(bool lock);

#endif
