/* Training steps in a communicator's sequence of calls: the period at
 * which its calls repeat and the position at which a step starts. One
 * algorithm for the report, over a run's collectives (its analysis
 * tools/cli/report/analyze/steps.c), and for the reducer, over each
 * communicator's recent calls (stats/steps_online.h).
 *
 * A call is its key (op and size as a small number) and the host's time
 * since the call before it (NAN where not known). The calls repeat at the
 * pattern's period P0; a step is the shortest multiple of P0 whose longest
 * host gaps (the program's own work between steps) start its steps
 * regularly, or, where no gap stands out, P0 from its longest mean gap.
 *
 * Pure: no state; each function allocates its scratch and returns false
 * (or 0) without memory. Any thread. */
#ifndef NCCLTAP_STEP_PATTERN_H
#define NCCLTAP_STEP_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TAP_STEP_MIN_MATCH 0.9    /* of the pattern's positions that repeat */
#define TAP_STEP_MIN_BREAK 3.0    /* a step's gap: this many times the other calls' (medians) */
#define TAP_STEP_MIN_REGULAR 0.8  /* of the distances between step starts that are the period */

/* Whether key[0..n) repeats at period p: TAP_STEP_MIN_MATCH of the
 * positions, over at least 3 periods. */
bool tap_step_keys_repeat(const uint32_t *key, size_t n, size_t p);

/* P0: the shortest period, at most max_period, at which key[0..n)
 * repeats; 0 none. */
size_t tap_step_pattern_period(const uint32_t *key, size_t n, size_t max_period);

/* The step's period (a multiple of `pattern`, at most max_period) and
 * phase (a step's first call's index modulo the period, the calls
 * numbered from `first`: key[0] is the caller's call `first`) from the
 * gaps that stand out; false where none do (or without memory). */
bool tap_step_by_gap(const uint32_t *key, const double *gap_ns, size_t n, size_t first, size_t pattern,
                     size_t max_period, size_t *period, size_t *phase);

/* The phase of `period` whose calls' mean gap is the longest. */
size_t tap_step_phase_of_longest_gap(const double *gap_ns, size_t n, size_t period);

#endif
