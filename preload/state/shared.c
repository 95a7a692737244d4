#include "state/shared.h"

#include "base/log.h"

struct tap_totals tap_totals;
_Atomic bool tap_closed;
struct mpmc_queue *_Atomic tap_ring;
_Atomic uint64_t tap_no_memory;

void tap_note_no_memory(const char *what)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    atomic_fetch_add_explicit(&tap_no_memory, 1, memory_order_relaxed);
    TAP_LOG_ONCE(said, "out of memory for %s; counted in totals.no_memory", what);
}
