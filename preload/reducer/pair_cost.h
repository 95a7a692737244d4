/* What recording an event pair costs the calling thread, estimated from the
 * costs timed ops report (reducer thread only). auto's sampling rate rests
 * on it (sampling.h). */
#ifndef NCCLTAP_PAIR_COST_H
#define NCCLTAP_PAIR_COST_H

#include <stdint.h>

/* The last PAIR_COST_WINDOW costs, and their 10th percentile. */
#define PAIR_COST_WINDOW 64

struct tap_pair_cost {
    uint32_t window[PAIR_COST_WINDOW];
    uint64_t seen;
    double estimate_ns; /* 0 until enough costs were seen */
};

/* One timed op's cost (ns). */
void tap_pair_cost_observe(struct tap_pair_cost *p, uint32_t cost_ns);

#endif
