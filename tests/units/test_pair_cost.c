/* The pair cost auto's rate rests on: the steady cost within a few timed
 * ops of the start, whatever the calibration said, and not moved by a
 * thread descheduled between its records. */
#include "reducer/pair_cost.h"
#include "test.h"

void test_pair_cost(void)
{
    struct tap_pair_cost p = {0};
    for (int i = 0; i < 7; i++)
        tap_pair_cost_observe(&p, 4000);
    CHECK(p.estimate_ns == 0); /* not yet: the caller keeps the calibration */
    tap_pair_cost_observe(&p, 4000);
    CHECK(p.estimate_ns == 4000); /* 8 ops suffice (a slow average took hundreds) */

    /* Costs 3,000..3,063 with one in eight descheduled (a millisecond): the
     * 10th percentile stays among the usual ones. */
    for (uint32_t i = 0; i < 64; i++)
        tap_pair_cost_observe(&p, i % 8 == 7 ? 1000000 : 3000 + i);
    CHECK(p.estimate_ns >= 3000 && p.estimate_ns < 3064);

    /* The steady cost rises under load: followed within one window. */
    for (int i = 0; i < 64; i++)
        tap_pair_cost_observe(&p, 9000);
    CHECK(p.estimate_ns == 9000);
}
