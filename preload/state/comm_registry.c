#include "state/comm_registry.h"
#include "state/shared.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/monotonic.h"
#include "nccl/real_nccl.h"
#include "base/utf8.h"
#include "cuda/gpu_timing.h"

/* Open addressing, linear probing, keys never removed: a retired handle
 * keeps its slot with no communicator, and takes it again if NCCL hands out
 * the same address. Half full at most: TAP_COMM_MAX keys are kept for
 * registered communicators, as many for handles counted in (overflow);
 * past those, such a handle is not kept, and each thread finds (overflow)
 * again through tap_comm_register when its cached lookup misses. */
#define TABLE_SLOTS (4 * TAP_COMM_MAX)
#define MAX_KEYS (TABLE_SLOTS / 2)

struct slot {
    _Atomic(ncclComm_t) key;
    _Atomic(struct tap_comm *) value;
};

_Atomic uint32_t tap_comm_generation;
static struct slot table[TABLE_SLOTS];
static unsigned nkeys;             /* under register_lock */
/* In creation order, (overflow) among them from its first call. */
static struct tap_comm *_Atomic all[TAP_COMM_MAX + 1];
static _Atomic unsigned ncomms;
static struct tap_comm overflow;
static _Atomic bool overflow_listed; /* written under register_lock */
/* Communicators counted in (overflow) because the registry was full (not
 * for want of memory: tap_no_memory counts those). */
static _Atomic uint64_t past_limit;
/* Registered communicators still alive: none ended by a finalize, destroy
 * or abort nccltap saw (tap_comm_end). */
static _Atomic unsigned alive;
static pthread_mutex_t register_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_flag full_said = ATOMIC_FLAG_INIT;


uint64_t tap_hash(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static unsigned slot_of(ncclComm_t handle)
{
    uint64_t x = (uint64_t)(uintptr_t)handle;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (unsigned)x & (TABLE_SLOTS - 1);
}

/* A new record, filled from what the caller and NCCL say; NULL without memory. */
static struct tap_comm *new_record(ncclComm_t handle, uint64_t id, uint64_t parent_id,
                                   enum tap_comm_origin origin, const char *name,
                                   const struct tap_comm_config *config, int rank, int nranks, uint64_t init_ns)
{
    struct tap_comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    const struct real_nccl *r = real_nccl(NULL);
    c->handle = handle;
    c->id = id;
    c->parent_id = parent_id;
    c->origin = origin;
    c->rank = rank;
    c->nranks = nranks;
    c->device = -1;
    c->registered_ns = tap_monotonic_ns();
    c->init_ns = init_ns;
    c->config = config ? *config : TAP_COMM_CONFIG_NONE;
    if (name)
        tap_utf8_copy(c->name, sizeof c->name, name); /* whole characters: a cut name stays UTF-8 */
    if (rank < 0 && r->ncclCommUserRank && r->ncclCommUserRank(handle, &c->rank) != ncclSuccess)
        c->rank = -1;
    if (nranks < 0 && r->ncclCommCount && r->ncclCommCount(handle, &c->nranks) != ncclSuccess)
        c->nranks = -1;
    if (r->ncclCommCuDevice)
        r->ncclCommCuDevice(handle, &c->device);
    if (c->device >= 0 && tap_gpu_ready())
        tap_gpu_uuid(c->device, c->gpu_uuid, sizeof c->gpu_uuid);
    return c;
}

/* Appends c to the list; under register_lock. */
static void list_locked(struct tap_comm *c)
{
    unsigned n = atomic_load(&ncomms);
    c->creation = n;
    atomic_store(&all[n], c);
    atomic_store(&ncomms, n + 1);
}

/* (overflow), listed at its first use: one per process (its id too, so
 * that the report never merges two processes' as one communicator). */
static struct tap_comm *overflow_locked(void)
{
    if (!overflow_listed) {
        pid_t pid = getpid();
        overflow.id = tap_hash(tap_hash(TAP_HASH_SEED, "(overflow)", 10), &pid, sizeof pid);
        overflow.origin = TAP_ORIGIN_OVERFLOW;
        overflow.rank = overflow.nranks = overflow.device = -1;
        strcpy(overflow.name, "(overflow)");
        list_locked(&overflow);
        overflow_listed = true;
    }
    return &overflow;
}

/* handle -> c, where the table has room for it; under register_lock. */
/* Maps handle to c; false when the table had no key left for it (then
 * each lookup of the handle registers it again). */
static bool map_locked(ncclComm_t handle, struct tap_comm *c)
{
    for (unsigned i = slot_of(handle);; i = (i + 1) & (TABLE_SLOTS - 1)) {
        ncclComm_t k = atomic_load_explicit(&table[i].key, memory_order_relaxed);
        if (k == NULL && (c == &overflow ? nkeys >= MAX_KEYS - TAP_COMM_MAX : nkeys == MAX_KEYS))
            return false;
        if (k == handle || k == NULL) {
            nkeys += k == NULL;
            atomic_store_explicit(&table[i].value, c, memory_order_release);
            atomic_store_explicit(&table[i].key, handle, memory_order_release);
            atomic_fetch_add_explicit(&tap_comm_generation, 1, memory_order_release);
            return true;
        }
    }
}

static unsigned registered(void) { return atomic_load(&ncomms) - overflow_listed; }

struct tap_comm *tap_comm_register(ncclComm_t handle, uint64_t id, uint64_t parent_id,
                                   enum tap_comm_origin origin, const char *name,
                                   const struct tap_comm_config *config, int rank, int nranks, uint64_t init_ns)
{
    /* Read unlocked: a stale count only costs an allocation given back. */
    struct tap_comm *c = registered() < TAP_COMM_MAX
                       ? new_record(handle, id, parent_id, origin, name, config, rank, nranks, init_ns) : NULL;
    bool no_memory = !c && registered() < TAP_COMM_MAX;
    pthread_mutex_lock(&register_lock);
    bool past = false;
    if (c && registered() < TAP_COMM_MAX) {
        list_locked(c);
        atomic_fetch_add(&alive, 1);
    } else {
        free(c);
        c = overflow_locked();
        past = !no_memory;
    }
    bool mapped = map_locked(handle, c);
    /* A communicator past the limit is counted once: at its creation, or
     * at the lookup that maps its handle. One whose handle found no key
     * left (handles never reused, thousands past the limit) is looked up
     * again at each call: counted at its creation only. */
    if (past && (origin != TAP_ORIGIN_UNREGISTERED || mapped)) {
        atomic_fetch_add_explicit(&past_limit, 1, memory_order_relaxed);
        TAP_LOG_ONCE(full_said, "more than %u communicators: the calls of later ones are counted in the "
                     "(overflow) communicator", TAP_COMM_MAX);
    }
    pthread_mutex_unlock(&register_lock);
    if (no_memory)
        tap_note_no_memory("a communicator's record: its calls are counted in the (overflow) communicator");
    return c;
}

struct tap_comm *tap_comm_find(ncclComm_t handle)
{
    for (unsigned i = slot_of(handle);; i = (i + 1) & (TABLE_SLOTS - 1)) {
        ncclComm_t k = atomic_load_explicit(&table[i].key, memory_order_acquire);
        if (k == handle)
            return atomic_load_explicit(&table[i].value, memory_order_acquire);
        if (k == NULL)
            return NULL;
    }
}

void tap_comm_retire(ncclComm_t handle, const struct tap_comm *c)
{
    pthread_mutex_lock(&register_lock);
    for (unsigned i = slot_of(handle);; i = (i + 1) & (TABLE_SLOTS - 1)) {
        ncclComm_t k = atomic_load_explicit(&table[i].key, memory_order_relaxed);
        if (k == NULL)
            break;
        if (k == handle) {
            if (atomic_load_explicit(&table[i].value, memory_order_relaxed) == c) {
                atomic_store_explicit(&table[i].value, NULL, memory_order_release);
                atomic_fetch_add_explicit(&tap_comm_generation, 1, memory_order_release);
            }
            break;
        }
    }
    pthread_mutex_unlock(&register_lock);
}

unsigned tap_comm_count(void) { return atomic_load(&ncomms); }

bool tap_comm_end(struct tap_comm *c, enum tap_comm_state state)
{
    if (c->origin != TAP_ORIGIN_OVERFLOW && atomic_exchange(&c->state, (int)state) == TAP_COMM_ALIVE)
        atomic_fetch_sub(&alive, 1);
    return atomic_load(&alive) == 0;
}

uint64_t tap_comm_past_limit(void) { return atomic_load_explicit(&past_limit, memory_order_relaxed); }

uint64_t tap_comm_total_calls(void)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < tap_comm_count(); i++)
        n += atomic_load_explicit(&tap_comm_at(i)->seq, memory_order_relaxed);
    return n;
}

struct tap_comm *tap_comm_at(unsigned i) { return atomic_load(&all[i]); }

void tap_comm_registry_reset(void)
{
    memset(table, 0, sizeof table);
    nkeys = 0;
    memset(&overflow, 0, sizeof overflow);
    overflow_listed = false;
    atomic_store(&past_limit, 0);
    atomic_store(&alive, 0);
    atomic_store(&ncomms, 0);
    atomic_fetch_add(&tap_comm_generation, 1);
}

void tap_comm_registry_fork_lock(bool lock)
{
    (lock ? pthread_mutex_lock : pthread_mutex_unlock)(&register_lock);
}
