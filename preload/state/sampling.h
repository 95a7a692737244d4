/* Which calls `auto` times (NCCLTAP_TIMING=auto), shared by the hot path,
 * which decides, and the reducer, which measures.
 *
 * The sample is the same calls on every rank whatever each rank measured,
 * so that the cross-rank analysis matches them: which calls are sampled
 * depends only on the communicator id, the call's seq and the op's size
 * class, never on a rank's own timings (a loaded CPU, or waiting for a
 * late rank, changes those by up to 8x).
 * - Call `seq` of communicator `id` is in the sample of period 2^shift when
 *   the top `shift` bits of (seq + id) x 0x9e3779b97f4a7c15 are zero; the
 *   calls of period 2^(k+1) are a subset of those of period 2^k.
 * - A class's steady period, its aligned shift, comes from a nominal cost
 *   model alone (below): the period that keeps a timed pair within
 *   NCCLTAP_OVERHEAD_PCT of the shortest time such an op takes on fast
 *   hardware.
 * - Learning, by seq alone: the class's first call and the next
 *   TAP_LEARN_CALLS are timed (TAP_LEARN_CALLS_LONG for classes whose
 *   calls are long, aligned shift <= TAP_LEARN_LONG_SHIFT), then the
 *   aligned sample. Every rank counts the same calls.
 * - On top of that sample, a rank times every call of a class whose
 *   durations it measured long enough for one pair to fit the budget
 *   (the reducer's rate 1); a long class that does not fit ends its window
 *   when measured (a pair costs GPU time too, which 1,024 long calls in a
 *   row would pay). These choices are the rank's own. */
#ifndef NCCLTAP_SAMPLING_H
#define NCCLTAP_SAMPLING_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define TAP_SAMPLE_MAX_SHIFT 40

/* The nominal cost model of the aligned sample: a timed pair costs twice
 * its host time, 2 x 2.2 us per record on H200 (DESIGN.md), and an op of
 * S bytes takes no less than 5 us + S / 400 GB/s (NCCL's small-message
 * latency on NVLink is 6.5 to 7 us; 400 GB/s is above the busbw of any
 * NVLink generation measured here). Collectives across GPUs are slower,
 * so their sample costs at most the budget; one rank's (a local copy, 1 GiB
 * in 0.51 ms on H200) can be faster, and its sample costs more. */
#define TAP_NOMINAL_PAIR_COST_NS 8800.0
#define TAP_NOMINAL_LATENCY_NS 5000.0
#define TAP_NOMINAL_BYTES_PER_NS 400.0

/* The learning window's length, in calls of the communicator since the
 * class's first call: short for short calls, whose pairs cost the host
 * more than the budget (16 pairs in a 1,000-call run of 8 B: about 1%);
 * long for long calls, so that every
 * call of a burst (64 MiB at 100 GB/s: 1 ms each) is timed before any
 * duration is known. */
#define TAP_LEARN_CALLS 16
#define TAP_LEARN_CALLS_LONG 1024
#define TAP_LEARN_LONG_SHIFT 3

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

/* The aligned shift of size class `cls` (S in [2^cls, 2^(cls+1))), from
 * the nominal model at its smallest size: the same on every rank. */
static inline unsigned tap_sample_aligned_shift(unsigned cls, double pct)
{
    double bytes = cls >= 63 ? 0x1p63 : (double)(1ull << cls);
    return tap_sample_shift(TAP_NOMINAL_PAIR_COST_NS, TAP_NOMINAL_LATENCY_NS + bytes / TAP_NOMINAL_BYTES_PER_NS,
                            pct);
}

/* The shift of the learning schedule `calls` calls after the class's first:
 * 0 (every call) within the window, then the aligned shift. */
static inline unsigned tap_sample_learn_shift(uint64_t calls, unsigned aligned)
{
    uint64_t window = aligned <= TAP_LEARN_LONG_SHIFT ? TAP_LEARN_CALLS_LONG : TAP_LEARN_CALLS;
    return calls < window ? 0u : aligned;
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
