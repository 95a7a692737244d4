#include "state/callers.h"

#include <stdatomic.h>

static _Atomic uint32_t slots[TAP_CALLERS_MAX];
static _Atomic unsigned count;

void tap_callers_add(uint32_t tid)
{
    unsigned i = atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    if (i < TAP_CALLERS_MAX)
        atomic_store_explicit(&slots[i], tid, memory_order_release);
}

unsigned tap_callers_count(void)
{
    return atomic_load_explicit(&count, memory_order_acquire);
}

uint32_t tap_caller_at(unsigned i)
{
    return atomic_load_explicit(&slots[i], memory_order_acquire);
}

void tap_callers_reset(void)
{
    for (unsigned i = 0; i < TAP_CALLERS_MAX; i++)
        atomic_store_explicit(&slots[i], 0, memory_order_relaxed);
    atomic_store_explicit(&count, 0, memory_order_release);
}
