/* Communicator and group hooks, called by the generated wrappers after the
 * real call. Identities: a communicator's id is the same on every rank, so
 * the report can match ranks: the hash of its ncclUniqueId, or for a child,
 * of its parent's id, how it was made, the parent's child number (every
 * member rank makes the same calls on the parent, in the same order) and
 * the arguments that tell siblings apart. */
#include "entry/comm_hooks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entry/comm_enroll.h"
#include "entry/thread.h"
#include "state/comm_registry.h"
#include "base/monotonic.h"
#include "entry/intercept.h"
#include "runtime/runtime.h"
#include "writers/tracing.h"

static bool created(ncclResult_t r, const ncclComm_t *comm)
{
    return (r == ncclSuccess || r == ncclInProgress) && comm && *comm;
}

/* A child call that NCCL accepted; its handle may come later. */
static bool accepted(ncclResult_t r, const ncclComm_t *newcomm)
{
    return (r == ncclSuccess || r == ncclInProgress) && newcomm;
}

static const char *config_name(const ncclConfig_t *config)
{
    if (!config || config->version < NCCLTAP_CONFIG_COMMNAME_VERSION ||
        config->size < offsetof(ncclConfig_t, commName) + sizeof config->commName)
        return NULL;
    return config->commName;
}

/* *config as kept (state/comm_config.h), in *cfg; NULL when none given. */
static const struct tap_comm_config *read_config(struct tap_comm_config *cfg, const ncclConfig_t *config)
{
    if (!config)
        return NULL;
    tap_comm_config_read(cfg, config);
    return cfg;
}

/* When this thread's current communicator call (init, split...) began. */
static __thread uint64_t call_start_ns __attribute__((tls_model("initial-exec")));

bool tap_comm_call_begin(void)
{
    call_start_ns = tap_monotonic_ns();
    tap_enter();
    return true;
}

static uint64_t child_id(struct tap_comm *parent, const char *how, uint32_t child_no)
{
    uint64_t h = tap_hash(TAP_HASH_SEED, &parent->id, sizeof parent->id);
    h = tap_hash(h, how, strlen(how));
    return tap_hash(h, &child_no, sizeof child_no);
}

void tap_comm_after_ncclCommInitRank(ncclResult_t r, ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
    if (created(r, comm))
        tap_comm_enroll(*comm, tap_hash(TAP_HASH_SEED, &id, sizeof id), 0, TAP_ORIGIN_INIT, NULL, NULL, rank, nranks,
            call_start_ns);
}

void tap_comm_after_ncclCommInitRankConfig(ncclResult_t r, ncclComm_t *comm, int nranks, ncclUniqueId id,
                                           int rank, ncclConfig_t *config)
{
    struct tap_comm_config cfg;
    if (created(r, comm))
        tap_comm_enroll(*comm, tap_hash(TAP_HASH_SEED, &id, sizeof id), 0, TAP_ORIGIN_CONFIG,
            config_name(config), read_config(&cfg, config), rank, nranks, call_start_ns);
}

void tap_comm_after_ncclCommInitRankScalable(ncclResult_t r, ncclComm_t *comm, int nranks, int rank,
                                             int nid, ncclUniqueId *ids, ncclConfig_t *config)
{
    struct tap_comm_config cfg;
    if (!created(r, comm) || nid < 1 || !ids)
        return;
    tap_comm_enroll(*comm, tap_hash(TAP_HASH_SEED, ids, sizeof *ids * (size_t)nid), 0, TAP_ORIGIN_SCALABLE,
        config_name(config), read_config(&cfg, config), rank, nranks, call_start_ns);
}

void tap_comm_after_ncclCommInitAll(ncclResult_t r, ncclComm_t *comm, int ndev, const int *devlist)
{
    (void)devlist;
    if (r != ncclSuccess || !comm)
        return;
    /* All ranks are in this process: one id per call, from pid and order. */
    static _Atomic uint32_t calls;
    struct { pid_t pid; uint32_t n; } key = {getpid(), atomic_fetch_add(&calls, 1)};
    uint64_t id = tap_hash(TAP_HASH_SEED, &key, sizeof key);
    for (int i = 0; i < ndev; i++)
        if (comm[i])
            tap_comm_enroll(comm[i], id, 0, TAP_ORIGIN_INITALL, NULL, NULL, i, ndev, call_start_ns);
}

void tap_comm_after_ncclCommSplit(ncclResult_t r, ncclComm_t comm, int color, int key,
                                  ncclComm_t *newcomm, ncclConfig_t *config)
{
    struct tap_comm_config cfg;
    (void)key;
    struct tap_comm *parent = comm ? tap_comm_lookup(comm) : NULL;
    if (!parent)
        return;
    uint32_t child_no = atomic_fetch_add(&parent->children, 1);
    if (!accepted(r, newcomm) || color == NCCL_SPLIT_NOCOLOR)
        return;
    uint64_t id = child_id(parent, "split", child_no);
    tap_comm_enroll_or_park(newcomm, tap_hash(id, &color, sizeof color), parent->id, TAP_ORIGIN_SPLIT,
                            config_name(config), read_config(&cfg, config), -1, -1, call_start_ns);
}

static int compare_int(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

void tap_comm_after_ncclCommShrink(ncclResult_t r, ncclComm_t comm, int *exclude, int nexclude,
                                   ncclComm_t *newcomm, ncclConfig_t *config, int flags)
{
    struct tap_comm_config cfg;
    (void)flags;
    struct tap_comm *parent = comm ? tap_comm_lookup(comm) : NULL;
    if (!parent)
        return;
    uint32_t child_no = atomic_fetch_add(&parent->children, 1);
    if (!accepted(r, newcomm))
        return;
    uint64_t id = child_id(parent, "shrink", child_no);
    /* The excluded set, in an order every rank agrees on. */
    int sorted[256];
    if (exclude && nexclude > 0 && nexclude <= 256) {
        memcpy(sorted, exclude, sizeof *exclude * (size_t)nexclude);
        qsort(sorted, (size_t)nexclude, sizeof *sorted, compare_int);
        id = tap_hash(id, sorted, sizeof *sorted * (size_t)nexclude);
    }
    tap_comm_enroll_or_park(newcomm, id, parent->id, TAP_ORIGIN_SHRINK, config_name(config),
                            read_config(&cfg, config), -1, -1, call_start_ns);
}

void tap_comm_after_ncclCommGrow(ncclResult_t r, ncclComm_t comm, int nranks, const ncclUniqueId *uid,
                                 int rank, ncclComm_t *newcomm, ncclConfig_t *config)
{
    struct tap_comm_config cfg;
    struct tap_comm *parent = comm ? tap_comm_lookup(comm) : NULL;
    uint32_t child_no = parent ? atomic_fetch_add(&parent->children, 1) : 0;
    if (!accepted(r, newcomm))
        return;
    /* New ranks have no parent; the unique id, when given, names the grown
     * communicator on every rank. */
    uint64_t id = uid ? tap_hash(TAP_HASH_SEED, uid, sizeof *uid)
                : parent ? child_id(parent, "grow", child_no)
                         : tap_hash(TAP_HASH_SEED, newcomm, sizeof *newcomm);
    tap_comm_enroll_or_park(newcomm, id, parent ? parent->id : 0, TAP_ORIGIN_GROW, config_name(config),
                            read_config(&cfg, config), rank, nranks, call_start_ns);
}

/* The communicator a finalize, destroy or abort just ended, or NULL. Its
 * handle may already be another's: once NCCL has freed it, another thread
 * can be given the same address and register it before this hook runs.
 * The one meant was registered before the call began. */
static struct tap_comm *ended(ncclResult_t r, ncclComm_t comm)
{
    struct tap_comm *c = comm && (r == ncclSuccess || r == ncclInProgress) ? tap_comm_find(comm) : NULL;
    return c && c->registered_ns <= call_start_ns ? c : NULL; /* (overflow): 0 */
}

/* (overflow) holds many communicators: it has no state of its own. Its
 * ops ended by now where the call returned ncclSuccess (ncclInProgress: a
 * non-blocking communicator is still flushing them). Returns whether no
 * communicator is alive any more. */
static bool set_state(struct tap_comm *c, enum tap_comm_state state, ncclResult_t r)
{
    if (c->origin != TAP_ORIGIN_OVERFLOW && r == ncclSuccess &&
        !atomic_load_explicit(&c->ended_ns, memory_order_relaxed))
        atomic_store_explicit(&c->ended_ns, tap_monotonic_ns(), memory_order_release);
    bool none_alive = tap_comm_end(c, state);
    if (c->origin != TAP_ORIGIN_OVERFLOW)
        TAP_TRACE(comm_destroy, c, (int)state);
    return none_alive;
}

/* The process's last communicator has ended: what it did so far is
 * complete, and it may end with _exit (Python multiprocessing's forked
 * workers do), which runs no exit handler. The reducer writes the rank
 * file and the per-op file and log now; the hook waits for it a bounded
 * time (runtime.h). */
static void after_end(bool none_alive)
{
    if (none_alive)
        tap_runtime_checkpoint();
}

void tap_comm_after_ncclCommFinalize(ncclResult_t r, ncclComm_t comm)
{
    struct tap_comm *c = ended(r, comm);
    if (c)
        after_end(set_state(c, TAP_COMM_FINALIZED, r));
}

/* Retired: NCCL may hand the address out again, for a new communicator. */
static void gone(ncclResult_t r, ncclComm_t comm, enum tap_comm_state state)
{
    struct tap_comm *c = ended(r, comm);
    if (!c)
        return;
    bool none_alive = set_state(c, state, r);
    tap_comm_retire(comm, c);
    after_end(none_alive);
}

void tap_comm_after_ncclCommDestroy(ncclResult_t r, ncclComm_t comm) { gone(r, comm, TAP_COMM_DESTROYED); }
void tap_comm_after_ncclCommAbort(ncclResult_t r, ncclComm_t comm) { gone(r, comm, TAP_COMM_ABORTED); }

bool tap_group_before_ncclGroupStart(void) { return true; }
void tap_group_after_ncclGroupStart(ncclResult_t r) { tap_group_start_done(r); }

bool tap_group_before_ncclGroupEnd(void)
{
    tap_group_end_begin();
    return true;
}
void tap_group_after_ncclGroupEnd(ncclResult_t r)
{
    if (tap_group_end_done(r, false))
        tap_comm_enroll_born(true);
}

bool tap_group_before_ncclGroupSimulateEnd(void)
{
    tap_group_end_begin();
    return true;
}
void tap_group_after_ncclGroupSimulateEnd(ncclResult_t r) { tap_group_end_done(r, true); }
