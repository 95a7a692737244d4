/* The pair cost as the 10th percentile of the last 64 timed ops' costs,
 * refreshed every 8 of them.
 * - A percentile, not a mean: a thread descheduled between its two records
 *   reports a hundred times the usual cost, and ranks that share CPUs see
 *   such costs at different times; the rate must not follow them.
 * - A window, not a slowly moving average: at small sizes auto times few
 *   ops, and the calibration at start (records on an idle stream) is a
 *   third of the steady cost under load. An average moving by 1/32 of
 *   itself per op stayed near the calibration, and auto timed 36 of 1,020
 *   8 B AllReduces on two H200s where its rule says 8 (BENCHMARKS.md). */
#include "reducer/pair_cost.h"

#include <stdlib.h>
#include <string.h>

#define REFRESH_EVERY 8

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void tap_pair_cost_observe(struct tap_pair_cost *p, uint32_t cost_ns)
{
    p->window[p->seen++ % PAIR_COST_WINDOW] = cost_ns;
    if (p->seen % REFRESH_EVERY)
        return;
    size_t n = p->seen < PAIR_COST_WINDOW ? (size_t)p->seen : PAIR_COST_WINDOW;
    uint32_t sorted[PAIR_COST_WINDOW];
    memcpy(sorted, p->window, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_u32);
    p->estimate_ns = sorted[n / 10];
}
