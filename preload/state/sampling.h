/* Which calls `auto` times (NCCLTAP_TIMING=auto), shared by the hot path,
 * which decides, and the reducer, which learns the rate.
 *
 * A call is timed when its pair cost is within NCCLTAP_OVERHEAD_PCT of its
 * expected time; otherwise one call in a power-of-two period is. Which
 * calls: those whose (communicator id, seq) hashes to a value whose top
 * `shift` bits are zero. Every rank computes the same hash for the same
 * call, and the calls of period 2^(k+1) are a subset of those of period
 * 2^k, so ranks that chose different periods still share every call of the
 * longest one: the cross-rank analysis gets the same calls from all ranks. */
#ifndef NCCLTAP_SAMPLING_H
#define NCCLTAP_SAMPLING_H

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* What timing one call costs, as the rule counts it (ns): twice the host
 * cost of its event pair (the records also take time on the GPU's own
 * timeline, and polling them takes the driver's locks). The reducer sets it
 * from timed calls; 0 until the first pool has been calibrated. */
extern _Atomic uint64_t tap_timing_cost_ns;

#define TAP_SAMPLE_MAX_SHIFT 40

/* log2 of the period that keeps `cost_ns` per timed call within `pct`
 * percent of calls that take `expected_ns`: 0 (every call) when one pair
 * already fits. */
static inline unsigned tap_sample_shift(double cost_ns, double expected_ns, double pct)
{
    double budget = expected_ns * pct / 100.0;
    if (cost_ns <= budget)
        return 0;
    if (budget <= 0)
        return TAP_SAMPLE_MAX_SHIFT;
    double shift = ceil(log2(cost_ns / budget));
    return shift > TAP_SAMPLE_MAX_SHIFT ? TAP_SAMPLE_MAX_SHIFT : (unsigned)shift;
}

/* Whether call `seq` of communicator `comm_id` is in the sample of period
 * 2^shift. Fibonacci hashing: consecutive calls land evenly spread, so one
 * call in about every 2^shift of a (comm, op, size class) is chosen, also
 * when its calls are interleaved with others on the communicator. */
static inline bool tap_sample_selected(uint64_t comm_id, uint64_t seq, unsigned shift)
{
    if (shift == 0)
        return true;
    return ((seq + comm_id) * 0x9e3779b97f4a7c15ull) >> (64 - shift) == 0;
}

#endif
