#include "state/callsite.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "state/callsite_python.h"
#include "state/callsite_unwind.h"
#include "base/config.h"
#include "base/log.h"

/* Open addressing, twice as many slots as sites, so that a probe always
 * ends at an empty slot. A slot holds a site id (0: empty); the id's frames
 * are written before the slot is published (release), and read after it is
 * seen (acquire). Slots are never emptied. */
#define SLOTS (2 * TAP_SITE_CAPACITY)

static unsigned depth;          /* frames per site; 0: call sites off */
static unsigned width;          /* words per row: the frames, and as many Python frames' ids
                                 * when CPython runs (callsite_python.h) */
static uintptr_t *frames;       /* TAP_SITE_CAPACITY rows of `width`; id 1 is row 0 */
static _Atomic uint16_t slots[SLOTS];
static _Atomic unsigned nsites; /* ids handed out; may pass the capacity */
static atomic_flag full_said = ATOMIC_FLAG_INIT;

static void init_once(void)
{
    depth = tap_config.callsite_depth;
    if (depth > 1 && !tap_unwind_ready())
        depth = 1;
    if (depth == 1 && tap_skip_wanted() && !tap_unwind_ready())
        tap_log("NCCLTAP_CALLSITE_SKIP needs libunwind: call sites stay where NCCL was called");
    width = depth && tap_python_on() ? 2 * depth : depth;
    if (depth && !(frames = calloc(TAP_SITE_CAPACITY, width * sizeof *frames))) {
        tap_log("no memory for the call-site table: call sites are off");
        depth = 0;
    }
}

static void init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}

static uintptr_t *row(unsigned id) { return frames + (size_t)(id - 1) * width; }

static uint64_t hash(const uintptr_t *key)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (unsigned i = 0; i < width; i++) {
        h = (h ^ key[i]) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

static uint16_t table_full(void)
{
    TAP_LOG_ONCE(full_said, "more than %d distinct call sites: calls at further ones are counted as site 0",
                 TAP_SITE_CAPACITY);
    return TAP_SITE_NONE;
}

static uint16_t intern(const uintptr_t *key)
{
    size_t bytes = width * sizeof *key;
    unsigned mine = 0; /* an id taken for the key, once an empty slot was seen */
    for (unsigned i = (unsigned)hash(key) & (SLOTS - 1), n = 0; n < SLOTS; i = (i + 1) & (SLOTS - 1), n++) {
        uint16_t id = atomic_load_explicit(&slots[i], memory_order_acquire);
        if (id == 0) {
            if (!mine) {
                mine = atomic_fetch_add_explicit(&nsites, 1, memory_order_relaxed) + 1;
                if (mine > TAP_SITE_CAPACITY)
                    return table_full();
                memcpy(row(mine), key, bytes);
            }
            if (atomic_compare_exchange_strong_explicit(&slots[i], &id, (uint16_t)mine, memory_order_release,
                                                        memory_order_acquire))
                return (uint16_t)mine;
            /* Another thread took the slot first: `id` is now its site. */
        }
        if (memcmp(row(id), key, bytes) == 0)
            return id;
    }
    return table_full();
}

uint16_t tap_site_slow(uintptr_t ra, bool *same_every_time)
{
    init();
    /* Off: remembered as a one-frame site is, so that call sites off
     * cost the one compare of tap_site(), not this call every time. */
    *same_every_time = true;
    if (depth == 0)
        return TAP_SITE_NONE;
    uintptr_t key[2 * TAP_CALLSITE_MAX_DEPTH];
    bool unwind = depth > 1 || (tap_skip_wanted() && tap_skip_pc(ra) && tap_unwind_ready());
    if (width > depth) { /* the Python lines differ from call to call */
        *same_every_time = false;
        uint16_t ids[TAP_CALLSITE_MAX_DEPTH];
        unsigned n = tap_python_sites(ids, depth);
        for (unsigned k = 0; k < depth; k++)
            key[depth + k] = k < n ? ids[k] : 0;
    }
    if (unwind) {
        *same_every_time = false;
        tap_unwind_site(ra, key, depth);
        return intern(key);
    }
    /* One frame, the same for every call from here (without Python): the
     * thread remembers it. */
    key[0] = ra;
    return intern(key);
}

unsigned tap_sites_depth(void)
{
    init();
    return depth;
}

unsigned tap_sites_count(void)
{
    unsigned n = atomic_load_explicit(&nsites, memory_order_acquire);
    return n < TAP_SITE_CAPACITY ? n : TAP_SITE_CAPACITY;
}

static int by_id(const void *a, const void *b)
{
    return *(const uint16_t *)a - *(const uint16_t *)b;
}

unsigned tap_sites_published(uint16_t *ids, unsigned max)
{
    unsigned n = 0;
    /* Acquire: a slot is published after its id's frames were written. */
    for (unsigned i = 0; i < SLOTS && n < max; i++) {
        uint16_t id = atomic_load_explicit(&slots[i], memory_order_acquire);
        if (id)
            ids[n++] = id;
    }
    qsort(ids, n, sizeof *ids, by_id);
    return n;
}

const uintptr_t *tap_site_frames(uint16_t id) { return row(id); }

uint16_t tap_site_python(uint16_t id, unsigned k)
{
    return width > depth && k < depth ? (uint16_t)row(id)[depth + k] : 0;
}
