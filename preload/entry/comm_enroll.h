/* A communicator enters nccltap's view: registered with its identity,
 * the runtime started, GPU timing prepared for its context, its LTTng
 * event emitted. Children whose handles NCCL sets later are parked
 * (state/comm_parked.h) and enrolled when their handles appear. Cold path:
 * application threads, at communicator calls and at the first op on a
 * handle nccltap has not seen. */
#ifndef NCCLTAP_COMM_ENROLL_H
#define NCCLTAP_COMM_ENROLL_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/nccl_abi.h"
#include "state/comm_registry.h"

/* Enrolls `handle`; start_ns: when the call that made it began (0: unknown);
 * config: the ncclConfig_t it was given, as read (NULL: none). The first
 * takes the process's NCCL_* environment (state/comm_config.h).
 * Past the registry's limit or without memory, its calls go to (overflow). */
void tap_comm_enroll(ncclComm_t handle, uint64_t id, uint64_t parent, enum tap_comm_origin origin,
                     const char *name, const struct tap_comm_config *config, int rank, int nranks,
                     uint64_t start_ns);

/* Enrolls *where now if NCCL has set it, else parks it until it appears. */
void tap_comm_enroll_or_park(ncclComm_t *where, uint64_t id, uint64_t parent, enum tap_comm_origin origin,
                             const char *name, const struct tap_comm_config *config, int rank, int nranks,
                             uint64_t start_ns);

/* Enrolls the parked children whose handles have appeared, any thread's;
 * with `forget_mine` (after this thread's outermost group ends) drops this
 * thread's that did not. */
void tap_comm_enroll_born(bool forget_mine);

/* The communicator of `handle`: lock-free when registered. Otherwise a
 * parked child whose handle came late, or a handle created where nccltap
 * did not see it, registered then as origin "unregistered". */
struct tap_comm *tap_comm_lookup(ncclComm_t handle);

#endif
