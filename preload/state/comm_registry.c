#include "state/comm_registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "nccl/real_nccl.h"
#include "base/utf8.h"

/* Open addressing, linear probing, keys never removed: a destroyed handle's
 * slot is reused if NCCL hands out the same address again. Half full at most. */
#define TABLE_SLOTS 8192u
#define MAX_COMMS (TABLE_SLOTS / 2)

struct slot {
    _Atomic(ncclComm_t) key;
    _Atomic(struct tap_comm *) value;
};

_Atomic uint32_t tap_comm_generation;
static struct slot table[TABLE_SLOTS];
static struct tap_comm *_Atomic all[MAX_COMMS];
static _Atomic unsigned ncomms;
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

struct tap_comm *tap_comm_register(ncclComm_t handle, uint64_t id, uint64_t parent_id,
                                   enum tap_comm_origin origin, const char *name,
                                   int rank, int nranks)
{
    struct tap_comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    const struct real_nccl *r = real_nccl();
    c->handle = handle;
    c->id = id;
    c->parent_id = parent_id;
    c->origin = origin;
    c->rank = rank;
    c->nranks = nranks;
    c->device = -1;
    if (name)
        tap_utf8_copy(c->name, sizeof c->name, name); /* whole characters: a cut name stays UTF-8 */
    if (rank < 0 && r->ncclCommUserRank && r->ncclCommUserRank(handle, &c->rank) != ncclSuccess)
        c->rank = -1;
    if (nranks < 0 && r->ncclCommCount && r->ncclCommCount(handle, &c->nranks) != ncclSuccess)
        c->nranks = -1;
    if (r->ncclCommCuDevice)
        r->ncclCommCuDevice(handle, &c->device);

    pthread_mutex_lock(&register_lock);
    unsigned n = atomic_load(&ncomms);
    if (n == MAX_COMMS) {
        pthread_mutex_unlock(&register_lock);
        TAP_LOG_ONCE(full_said, "more than %u communicators: later ones are counted under the last one", MAX_COMMS);
        free(c);
        return atomic_load(&all[MAX_COMMS - 1]);
    }
    c->creation = n;
    atomic_store(&all[n], c);
    atomic_store(&ncomms, n + 1);
    for (unsigned i = slot_of(handle);; i = (i + 1) & (TABLE_SLOTS - 1)) {
        ncclComm_t k = atomic_load_explicit(&table[i].key, memory_order_relaxed);
        if (k == handle || k == NULL) {
            atomic_store_explicit(&table[i].value, c, memory_order_release);
            atomic_store_explicit(&table[i].key, handle, memory_order_release);
            atomic_fetch_add_explicit(&tap_comm_generation, 1, memory_order_release);
            break;
        }
    }
    pthread_mutex_unlock(&register_lock);
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

unsigned tap_comm_count(void) { return atomic_load(&ncomms); }

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
    atomic_store(&ncomms, 0);
    atomic_fetch_add(&tap_comm_generation, 1);
}

void tap_comm_registry_fork_lock(bool lock)
{
    (lock ? pthread_mutex_lock : pthread_mutex_unlock)(&register_lock);
}
