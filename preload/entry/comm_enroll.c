#include "entry/comm_enroll.h"

#include <sched.h>
#include <stdatomic.h>

#include "base/monotonic.h"
#include "base/utf8.h"
#include "cuda/gpu_timing.h"
#include "entry/bring_up.h"
#include "nccl/real_nccl.h"
#include "runtime/runtime.h"
#include "state/comm_parked.h"
#include "writers/tracing.h"

/* The first communicator starts the runtime; every new one prepares GPU
 * timing for the current context, off the hot path, before it is
 * registered, so that its record is whole when the reducer first sees it. */
void tap_comm_enroll(ncclComm_t handle, uint64_t id, uint64_t parent, enum tap_comm_origin origin,
                     const char *name, const struct tap_comm_config *config, int rank, int nranks,
                     uint64_t start_ns)
{
    uint64_t init_ns = start_ns ? tap_monotonic_ns() - start_ns : 0;
    const struct real_nccl *nccl = real_nccl(NULL);
    struct tap_param_api params = { nccl->ncclParamGetAllParameterKeys, nccl->ncclParamGetParameter };
    tap_nccl_env_snapshot(&params); /* once: NCCL has read its variables by now */
    tap_bring_up();
    if (tap_gpu_init())
        tap_pool_of_current_context();
    struct tap_comm *c = tap_comm_register(handle, id, parent, origin, name, config, rank, nranks, init_ns);
    tap_runtime_start();
    tap_tracing_start();
    if (c->origin != TAP_ORIGIN_OVERFLOW) /* not one shared by many */
        TAP_TRACE(comm_init, c, real_nccl(NULL)->version);
}

void tap_comm_enroll_or_park(ncclComm_t *where, uint64_t id, uint64_t parent, enum tap_comm_origin origin,
                             const char *name, const struct tap_comm_config *config, int rank, int nranks,
                             uint64_t start_ns)
{
    if (*where) {
        tap_comm_enroll(*where, id, parent, origin, name, config, rank, nranks, start_ns);
        return;
    }
    struct tap_parked p = {.where = where, .start_ns = start_ns, .id = id, .parent = parent, .origin = origin,
                           .rank = rank, .nranks = nranks};
    p.config = config ? *config : TAP_COMM_CONFIG_NONE;
    if (name)
        tap_utf8_copy(p.name, sizeof p.name, name);
    tap_parked_add(&p);
}

/* Threads between taking born children out of the parked table and
 * registering them: raised before the taking, so that a thread that finds
 * neither the child parked nor registered knows to wait for it. */
static _Atomic unsigned enrolling;

void tap_comm_enroll_born(bool forget_mine)
{
    if (!tap_parked_any())
        return;
    struct tap_parked born[TAP_PARKED_MAX];
    atomic_fetch_add(&enrolling, 1);
    unsigned n = tap_parked_take_born(born, TAP_PARKED_MAX, forget_mine);
    for (unsigned i = 0; i < n; i++)
        tap_comm_enroll(*born[i].where, born[i].id, born[i].parent, born[i].origin,
                        born[i].name[0] ? born[i].name : NULL, &born[i].config, born[i].rank, born[i].nranks,
                        born[i].start_ns);
    atomic_fetch_sub(&enrolling, 1);
}

struct tap_comm *tap_comm_lookup(ncclComm_t handle)
{
    struct tap_comm *c = tap_comm_find(handle);
    if (c || !handle)
        return c;
    tap_comm_enroll_born(false); /* a child whose handle came late? */
    /* Or one another thread has taken out to enroll: a split child's handle
     * appears to every thread at once. */
    while ((c = tap_comm_find(handle)) == NULL && atomic_load(&enrolling) > 0)
        sched_yield();
    if (c)
        return c;
    uint64_t id = tap_hash(TAP_HASH_SEED, &handle, sizeof handle);
    return tap_comm_register(handle, id, 0, TAP_ORIGIN_UNREGISTERED, NULL, NULL, -1, -1, 0);
}
