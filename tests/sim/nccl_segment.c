#include "nccl_segment.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "nccl_knobs.h"
#include "nccl_shm.h"
#include "nccl_signal.h"
#include "sim_time.h"

struct seg_header {
    _Atomic uint32_t nranks;     /* the first rank to attach sets it */
    _Atomic uint32_t attached;
};

/* One rank's part of one slot. tag and seen hold seq + 1 (mod 2^32): a
 * slot is reused every SIM_RING collectives, far below 2^32. */
struct seg_slot {
    _Atomic uint64_t arrival;    /* when this rank could begin the op, CLOCK_REALTIME */
    _Atomic uint32_t tag;        /* which collective `arrival` is for */
    _Atomic uint32_t seen;       /* last collective this rank read here */
};

#define SEG_HEADER_BYTES 64

/* One per communicator handle (rank) in this process. */
struct sim_segment {
    _Atomic int refs;
    _Atomic int aborted;
    _Atomic uint64_t abort_ns;   /* CLOCK_REALTIME, as arrivals */
    char name[SIM_SHM_NAME_LEN];
    unsigned char *map;
    size_t size;
    size_t board_offset;         /* the signal board's, at the end */
    int nranks;
};

struct seg_gate {
    struct sim_segment *seg;
    uint64_t seq;
    int rank;
    int hang;
    int published;
};

static struct seg_header *header(struct sim_segment *s)
{
    return (struct seg_header *)(void *)s->map;
}

static struct seg_slot *slot(struct sim_segment *s, uint64_t seq, int rank)
{
    size_t i = (size_t)(seq % SIM_RING) * (size_t)s->nranks + (size_t)rank;
    return (struct seg_slot *)(void *)(s->map + SEG_HEADER_BYTES) + i;
}

static void destroy(struct sim_segment *s)
{
    sim_shm_unmap(s->map, s->size);
    free(s);
}

ncclResult_t sim_segment_attach(uint64_t id, int nranks, int rank, struct sim_segment **out)
{
    struct sim_segment *s = calloc(1, sizeof *s);
    if (!s)
        return ncclSystemError;
    atomic_init(&s->refs, 1);
    sim_shm_name(s->name, 'c', id);
    s->nranks = nranks;
    s->board_offset = SEG_HEADER_BYTES + (size_t)SIM_RING * (size_t)nranks * sizeof(struct seg_slot);
    s->size = s->board_offset + sim_signal_board_bytes(nranks);
    s->map = sim_shm_map(s->name, s->size);
    if (!s->map) {
        free(s);
        return ncclSystemError;
    }
    struct seg_header *h = header(s);
    uint32_t expected = 0;
    if (!atomic_compare_exchange_strong(&h->nranks, &expected, (uint32_t)nranks) &&
        expected != (uint32_t)nranks) {
        fprintf(stderr, "ncclsim: rank %d says communicator %s has %d ranks, another said %u\n",
                rank, s->name, nranks, expected);
        destroy(s);
        return ncclInvalidUsage;
    }
    if (atomic_fetch_add(&h->attached, 1) >= (uint32_t)nranks) {
        fprintf(stderr, "ncclsim: more than %d ranks joined communicator %s (a rank used "
                "twice, or a unique id reused)\n", nranks, s->name);
        destroy(s);
        return ncclInvalidUsage;
    }
    *out = s;
    return ncclSuccess;
}

ncclResult_t sim_segment_wait_all(struct sim_segment *s, const char *what)
{
    struct seg_header *h = header(s);
    struct sim_backoff b;
    sim_backoff_init(&b, sim_knobs()->rdv_timeout_s);
    uint32_t got;
    while ((got = atomic_load(&h->attached)) < (uint32_t)s->nranks) {
        if (!sim_backoff_sleep(&b)) {
            fprintf(stderr, "ncclsim: %s: only %u of %d ranks joined within %g s "
                    "(NCCLSIM_RENDEZVOUS_TIMEOUT_S)\n", what, got, s->nranks,
                    sim_knobs()->rdv_timeout_s);
            sim_shm_unlink(s->name);
            return ncclSystemError;
        }
    }
    /* Every rank has it mapped: the name can go, so nothing is left behind. */
    sim_shm_unlink(s->name);
    return ncclSuccess;
}

void sim_segment_unref(struct sim_segment *s)
{
    if (atomic_fetch_sub(&s->refs, 1) == 1)
        destroy(s);
}

void sim_segment_abort(struct sim_segment *s)
{
    atomic_store(&s->abort_ns, (uint64_t)((int64_t)sim_now_ns() + sim_realtime_offset_ns()));
    atomic_store(&s->aborted, 1);
}

void sim_segment_ref(struct sim_segment *s)
{
    atomic_fetch_add(&s->refs, 1);
}

int sim_segment_nranks(const struct sim_segment *s)
{
    return s->nranks;
}

void *sim_segment_board(struct sim_segment *s)
{
    return s->size > s->board_offset ? s->map + s->board_offset : NULL;
}

int sim_segment_aborted(struct sim_segment *s, uint64_t *at_ns)
{
    if (!atomic_load(&s->aborted))
        return 0;
    *at_ns = (uint64_t)((int64_t)atomic_load(&s->abort_ns) - sim_realtime_offset_ns());
    return 1;
}

void sim_segment_reserve(struct sim_segment *s, int rank, uint64_t seq)
{
    (void)rank;
    if (seq < SIM_RING)
        return;
    uint32_t need = (uint32_t)(seq - SIM_RING + 1);
    struct sim_backoff b;
    sim_backoff_init(&b, 0);
    for (int r = 0; r < s->nranks; r++) {
        while ((int32_t)(atomic_load_explicit(&slot(s, seq, r)->seen, memory_order_acquire) - need) < 0 &&
               !atomic_load(&s->aborted))
            sim_backoff_sleep(&b);
    }
}

/* The gate: see sim_cuda_private.h for the rules it follows. */
static int gate(void *arg, uint64_t local_start, uint64_t *start)
{
    struct seg_gate *g = arg;
    struct sim_segment *s = g->seg;
    int64_t to_real = sim_realtime_offset_ns();
    if (atomic_load(&s->aborted)) {
        uint64_t t = (uint64_t)((int64_t)atomic_load(&s->abort_ns) - to_real);
        *start = t > local_start ? t : local_start;
        return 1;
    }
    if (g->hang)
        return 0;
    uint32_t tag = (uint32_t)(g->seq + 1);
    if (!g->published) {
        struct seg_slot *mine = slot(s, g->seq, g->rank);
        atomic_store_explicit(&mine->arrival, (uint64_t)((int64_t)local_start + to_real),
                              memory_order_relaxed);
        atomic_store_explicit(&mine->tag, tag, memory_order_release);
        g->published = 1;
    }
    uint64_t last = 0;
    for (int r = 0; r < s->nranks; r++) {
        struct seg_slot *sl = slot(s, g->seq, r);
        if (atomic_load_explicit(&sl->tag, memory_order_acquire) != tag)
            return 0;
        uint64_t a = atomic_load_explicit(&sl->arrival, memory_order_relaxed);
        if (a > last)
            last = a;
    }
    /* Done with the slot: the others may reuse it SIM_RING ops later. */
    atomic_store_explicit(&slot(s, g->seq, g->rank)->seen, tag, memory_order_release);
    *start = (uint64_t)((int64_t)last - to_real);
    return 1;
}

static void release(void *arg)
{
    struct seg_gate *g = arg;
    sim_segment_unref(g->seg);
    free(g);
}

ncclResult_t sim_segment_gate(struct sim_segment *s, int rank, uint64_t seq, int hang,
                              struct ncclsim_work *w)
{
    struct seg_gate *g = calloc(1, sizeof *g);
    if (!g)
        return ncclSystemError;
    g->seg = s;
    g->seq = seq;
    g->rank = rank;
    g->hang = hang;
    atomic_fetch_add(&s->refs, 1);
    w->gate = gate;
    w->release = release;
    w->arg = g;
    return ncclSuccess;
}
