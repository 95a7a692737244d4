/* The union of NCCL-busy intervals (reducer/busy.h): as a brute force
 * computes it whatever the order within the recent spans, the sum of
 * durations apart, never more than the time from the first start to the
 * last end; an interval ending before the folded spans' end adds to the
 * sum only. */
#include <stdint.h>
#include <stdlib.h>

#include "test.h"
#include "reducer/busy.h"

struct iv {
    uint64_t a, b;
};

static int by_start(const void *x, const void *y)
{
    uint64_t p = ((const struct iv *)x)->a, q = ((const struct iv *)y)->a;
    return (p > q) - (p < q);
}

/* The exact union of v[0, n) (sorts a copy). */
static uint64_t exact_union(const struct iv *v, size_t n)
{
    struct iv *s = malloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++)
        s[i] = v[i];
    qsort(s, n, sizeof *s, by_start);
    uint64_t sum = 0;
    for (size_t i = 0; i < n;) {
        uint64_t a = s[i].a, b = s[i].b;
        for (i++; i < n && s[i].a <= b; i++)
            b = s[i].b > b ? s[i].b : b;
        sum += b - a;
    }
    free(s);
    return sum;
}

/* An interval and where it is added: its place in time plus up to the
 * shuffle's, so that none is added more than `shuffle` places late. */
struct keyed {
    struct iv iv;
    size_t key;
};

static int by_key(const void *x, const void *y)
{
    size_t p = ((const struct keyed *)x)->key, q = ((const struct keyed *)y)->key;
    return (p > q) - (p < q);
}

/* n intervals of 1-30 us, starts 0-40 us apart (some overlapping, some
 * touching), each added up to `shuffle` places out of order: streams
 * completing out of order with each other by that much. */
static void check_random(size_t n, size_t shuffle, unsigned seed)
{
    struct iv *v = malloc(n * sizeof *v);
    struct keyed *k = malloc(n * sizeof *k);
    uint64_t t = 1000000000, sum = 0;
    srand(seed);
    for (size_t i = 0; i < n; i++) {
        t += (uint64_t)(rand() % 40000);
        v[i] = (struct iv){t, t + 1000 + (uint64_t)(rand() % 29000)};
        sum += v[i].b - v[i].a;
        k[i] = (struct keyed){v[i], i + (shuffle ? (size_t)rand() % (shuffle + 1) : 0)};
    }
    qsort(k, n, sizeof *k, by_key);
    for (size_t i = 0; i < n; i++)
        v[i] = k[i].iv;
    free(k);
    tap_busy_reset();
    for (size_t i = 0; i < n; i++)
        tap_busy_add(v[i].a, v[i].b);
    CHECK(tap_busy_union_ns() == exact_union(v, n));
    CHECK(tap_busy_sum_ns() == sum);
    free(v);
}

void test_busy(void)
{
    /* Few, in order, out of order within the recent spans, many. */
    check_random(10, 0, 1);
    check_random(5000, 0, 2);
    check_random(5000, 8, 3);
    check_random(5000, 48, 4);

    /* Overlapping and nested intervals merge; an empty one adds nothing. */
    tap_busy_reset();
    tap_busy_add(100, 200);
    tap_busy_add(150, 300);
    tap_busy_add(120, 130);
    tap_busy_add(300, 400);  /* touching */
    tap_busy_add(500, 500);
    tap_busy_add(50, 60);
    CHECK(tap_busy_union_ns() == 310);
    CHECK(tap_busy_sum_ns() == 100 + 150 + 10 + 100 + 10);

    /* An interval of a stream far behind, ending before every span kept
     * was folded, adds to the sum only: the union stays a union, never
     * more than the wall time from the first start to the last end. */
    tap_busy_reset();
    for (uint64_t i = 0; i < 1000; i++)
        tap_busy_add(1000 + i * 100, 1000 + i * 100 + 50);
    uint64_t before = tap_busy_union_ns();
    CHECK(before == 1000 * 50);
    tap_busy_add(1000, 1040);  /* inside the oldest span, long folded */
    CHECK(tap_busy_union_ns() == before);
    CHECK(tap_busy_sum_ns() == 1000 * 50 + 40);
    tap_busy_add(0, 2000000);  /* covering all: at most the wall time */
    CHECK(tap_busy_union_ns() <= 2000000);
}
