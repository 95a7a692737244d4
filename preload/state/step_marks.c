#include "state/step_marks.h"

#include <stdatomic.h>

#include "base/monotonic.h"

static _Atomic uint64_t marks[TAP_STEP_MARKS];
static _Atomic uint64_t total;

uint64_t tap_step_mark(uint64_t *now_ns)
{
    uint64_t n = atomic_fetch_add_explicit(&total, 1, memory_order_relaxed);
    *now_ns = tap_monotonic_ns();
    atomic_store_explicit(&marks[n % TAP_STEP_MARKS], *now_ns, memory_order_release);
    return n + 1;
}

uint64_t tap_step_marks_total(void)
{
    return atomic_load_explicit(&total, memory_order_acquire);
}

size_t tap_step_marks_each(size_t max, void (*fn)(uint64_t t, void *arg), void *arg)
{
    uint64_t n = tap_step_marks_total();
    uint64_t kept = n < TAP_STEP_MARKS ? n : TAP_STEP_MARKS, last = 0;
    kept = kept < max ? kept : max;
    size_t got = 0;
    for (uint64_t i = n - kept; i < n; i++) {
        uint64_t t = atomic_load_explicit(&marks[i % TAP_STEP_MARKS], memory_order_acquire);
        /* Marks from different threads may be stored out of order: the
         * times kept increase (one earlier than the last is being
         * overwritten, or raced). */
        if (t && t >= last) {
            fn(t, arg);
            last = t;
            got++;
        }
    }
    return got;
}

uint64_t tap_step_last_ns(void)
{
    uint64_t n = tap_step_marks_total();
    if (n < 2)
        return 0;
    uint64_t last = atomic_load_explicit(&marks[(n - 1) % TAP_STEP_MARKS], memory_order_acquire);
    uint64_t before = atomic_load_explicit(&marks[(n - 2) % TAP_STEP_MARKS], memory_order_acquire);
    return last && before && last > before ? last - before : 0;
}

void tap_step_marks_reset(void)
{
    atomic_store(&total, 0);
    for (size_t i = 0; i < TAP_STEP_MARKS; i++)
        atomic_store_explicit(&marks[i], 0, memory_order_relaxed);
}
