/* Steps found while the job runs (stats/steps_online.h), fed calls as the
 * reducer hands them over: DDP's pattern is found and every whole step
 * counted with its figures; a change of pattern loses the step and the
 * count goes on; a loop of one call has none. */
#include <string.h>

#include "test.h"
#include "stats/steps_online.h"
#include "nccl/nccl_ops.h"

/* DDP-like: `per` all-reduces a step of halving sizes, 20 us apart on the
 * host, each running 10 us; 500 us of the host's own work before each
 * step. `from` the first seq, *t the host clock (advanced). */
static void ddp_steps(struct tap_comm *c, uint64_t from, unsigned steps, unsigned per, uint64_t *t)
{
    uint64_t seq = from;
    for (unsigned s = 0; s < steps; s++) {
        *t += 500000;
        for (unsigned b = 0; b < per; b++) {
            if (b)
                *t += 20000;
            struct tap_op_rec op = {.comm = c, .seq = seq++, .bytes = (uint64_t)1 << (20 - b),
                                    .enqueue_ns = *t, .op = TAP_OP_ALLREDUCE};
            tap_steps_online_add(&op, *t + 1000, 10000);
        }
    }
}

void test_steps_online(void)
{
    tap_steps_online_reset();
    struct tap_comm c;
    memset(&c, 0, sizeof c);
    c.creation = 3;
    struct tap_comm_steps st;
    CHECK(!tap_steps_online_get(&c, &st));

    uint64_t t = 1000000000;
    ddp_steps(&c, 0, 100, 6, &t);
    CHECK(tap_steps_online_get(&c, &st));
    CHECK(st.period == 6);
    CHECK(st.steps == 99);  /* the 100th has not ended */
    /* A step: 500 us of work, 5 gaps of 20 us. Its NCCL time: 6 calls of
     * 10 us, none overlapping. */
    CHECK(st.last_ns == 600000);
    CHECK(st.last_nccl_ns == 60000);

    /* Another pattern (4 calls a step): the step is lost once the calls
     * stop repeating, and found again; the count goes on from 99. */
    ddp_steps(&c, 600, 100, 4, &t);
    CHECK(tap_steps_online_get(&c, &st));
    CHECK(st.period == 4);
    CHECK(st.steps > 99 && st.steps < 99 + 100);
    CHECK(st.last_ns == 560000 && st.last_nccl_ns == 40000);

    /* A loop of one call (nccl-tests'): no step. */
    struct tap_comm loop;
    memset(&loop, 0, sizeof loop);
    loop.creation = 4;
    for (uint64_t seq = 0; seq < 5000; seq++) {
        struct tap_op_rec op = {.comm = &loop, .seq = seq, .bytes = 8, .enqueue_ns = t += 5000,
                                .op = TAP_OP_ALLREDUCE};
        tap_steps_online_add(&op, t, 3000);
    }
    CHECK(!tap_steps_online_get(&loop, &st));

    /* Communicators past the bound have none (and cost nothing). */
    struct tap_comm far;
    memset(&far, 0, sizeof far);
    far.creation = TAP_STEPS_COMMS;
    ddp_steps(&far, 0, 20, 6, &t);
    CHECK(!tap_steps_online_get(&far, &st));
}
