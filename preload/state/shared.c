#include "state/shared.h"

#include "state/sampling.h"

struct tap_totals tap_totals;
struct mpmc_queue *_Atomic tap_ring;
_Atomic uint32_t tap_interval_no;
_Atomic uint64_t tap_timing_cost_ns;
