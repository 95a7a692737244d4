/* The record queue: nothing lost or duplicated under contention, a full
 * queue refuses instead of waiting, order kept per producer. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/mpmc_queue.h"
#include "test.h"

enum { PRODUCERS = 4, PER_PRODUCER = 200000 };

struct item {
    uint32_t producer;
    uint32_t n;
};

static struct mpmc_queue *q;
static uint64_t refused[PRODUCERS];

static void *produce(void *arg)
{
    uint32_t p = (uint32_t)(uintptr_t)arg;
    for (uint32_t n = 0; n < PER_PRODUCER; n++) {
        struct item it = {p, n};
        while (!mpmc_push(q, &it, sizeof it))
            refused[p]++; /* the test retries; the shim counts a drop */
    }
    return NULL;
}

void test_mpmc(void)
{
    /* Capacity rounds up to a power of two, and full means full. */
    struct mpmc_queue *small = mpmc_create(3, sizeof(struct item));
    struct item it = {0, 0};
    int pushed = 0;
    while (mpmc_push(small, &it, sizeof it))
        pushed++;
    CHECK(pushed == 4);
    CHECK(mpmc_approx_size(small) == 4);
    struct item out;
    CHECK(mpmc_pop(small, &out, sizeof out));
    CHECK(mpmc_approx_size(small) == 3); /* what the event pools' watcher reads */
    CHECK(mpmc_push(small, &it, sizeof it));
    mpmc_clear(small);
    CHECK(mpmc_approx_size(small) == 0);
    CHECK(!mpmc_pop(small, &out, sizeof out));
    mpmc_destroy(small);

    q = mpmc_create(1024, sizeof(struct item));
    pthread_t th[PRODUCERS];
    for (uintptr_t p = 0; p < PRODUCERS; p++)
        pthread_create(&th[p], NULL, produce, (void *)p);
    uint32_t next[PRODUCERS] = {0};
    uint64_t got = 0, out_of_order = 0;
    while (got < (uint64_t)PRODUCERS * PER_PRODUCER) {
        if (!mpmc_pop(q, &out, sizeof out))
            continue;
        if (out.producer >= PRODUCERS || out.n != next[out.producer])
            out_of_order++;
        else
            next[out.producer]++;
        got++;
    }
    for (int p = 0; p < PRODUCERS; p++)
        pthread_join(th[p], NULL);
    CHECK(out_of_order == 0);
    CHECK(!mpmc_pop(q, &out, sizeof out));
    for (int p = 0; p < PRODUCERS; p++)
        CHECK(next[p] == PER_PRODUCER);
    mpmc_destroy(q);
}
