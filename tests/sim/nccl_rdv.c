#include "nccl_rdv.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_knobs.h"
#include "nccl_shm.h"
#include "sim_time.h"

struct rdv_header {
    _Atomic uint32_t n;          /* participants; the first to come sets it */
    _Atomic uint32_t size;       /* record size, likewise */
    _Atomic uint32_t arrived;    /* records published */
};

struct rdv_entry {
    _Atomic uint32_t present;
    uint32_t pad;
    unsigned char data[];
};

#define RDV_HEADER_BYTES 64

struct sim_rdv {
    char name[SIM_SHM_NAME_LEN];
    unsigned char *map;
    size_t map_size, stride, size;
    int n;
};

static struct rdv_header *header(struct sim_rdv *r)
{
    return (struct rdv_header *)(void *)r->map;
}

static struct rdv_entry *entry(struct sim_rdv *r, int i)
{
    return (struct rdv_entry *)(void *)(r->map + RDV_HEADER_BYTES + (size_t)i * r->stride);
}

/* Sets a header field that the first participant chooses; 0 if another
 * participant chose differently. */
static int agree(_Atomic uint32_t *field, uint32_t v)
{
    uint32_t expected = 0;
    return atomic_compare_exchange_strong(field, &expected, v) || expected == v;
}

static void leave(struct sim_rdv *r)
{
    sim_shm_unmap(r->map, r->map_size);
    free(r);
}

ncclResult_t sim_rdv_post(uint64_t id, int n, int index, const void *rec, size_t size,
                          struct sim_rdv **out)
{
    struct sim_rdv *r = calloc(1, sizeof *r);
    if (!r)
        return ncclSystemError;
    sim_shm_name(r->name, 'x', id);
    r->n = n;
    r->size = size;
    r->stride = sizeof(struct rdv_entry) + ((size + 7) & ~(size_t)7);
    r->map_size = RDV_HEADER_BYTES + (size_t)n * r->stride;
    r->map = sim_shm_map(r->name, r->map_size);
    if (!r->map) {
        free(r);
        return ncclSystemError;
    }
    struct rdv_header *h = header(r);
    struct rdv_entry *e = entry(r, index);
    uint32_t expected = 0;
    if (!agree(&h->n, (uint32_t)n) || !agree(&h->size, (uint32_t)size) ||
        !atomic_compare_exchange_strong(&e->present, &expected, 1)) {
        fprintf(stderr, "ncclsim: ranks disagree on the communicator in %s (rank %d twice, or "
                "different sizes)\n", r->name, index);
        leave(r);
        return ncclInvalidUsage;
    }
    memcpy(e->data, rec, size);
    /* Release: whoever reads arrived == n sees every record. */
    atomic_fetch_add_explicit(&h->arrived, 1, memory_order_acq_rel);
    *out = r;
    return ncclSuccess;
}

ncclResult_t sim_rdv_finish(struct sim_rdv *r, void *all, const char *what)
{
    struct rdv_header *h = header(r);
    struct sim_backoff b;
    sim_backoff_init(&b, sim_knobs()->rdv_timeout_s);
    uint32_t got;
    while ((got = atomic_load_explicit(&h->arrived, memory_order_acquire)) < (uint32_t)r->n) {
        if (!sim_backoff_sleep(&b)) {
            fprintf(stderr, "ncclsim: %s: only %u of %d ranks arrived within %g s "
                    "(NCCLSIM_RENDEZVOUS_TIMEOUT_S)\n", what, got, r->n, sim_knobs()->rdv_timeout_s);
            sim_shm_unlink(r->name);
            leave(r);
            return ncclSystemError;
        }
    }
    /* Everyone has opened it: the name is no longer needed. */
    sim_shm_unlink(r->name);
    for (int i = 0; i < r->n; i++)
        memcpy((unsigned char *)all + (size_t)i * r->size, entry(r, i)->data, r->size);
    leave(r);
    return ncclSuccess;
}

void sim_rdv_abandon(struct sim_rdv *r)
{
    leave(r);
}
