/* The report's interval sets (tools/cli/report/intervals.h): merged as a
 * brute force over unit cells finds the covered runs, in any input order,
 * touching intervals joined, disjoint and maximal, the time covered the
 * cells covered. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "intervals.h"

#define SPAN 600  /* the time domain, unit cells [t, t + 1) */

/* n random intervals [from, to) in [0, SPAN), non-empty, into iv; the
 * cells they cover into cell[]. */
static void random_intervals(uint64_t (*iv)[2], size_t n, unsigned max_len, char cell[SPAN])
{
    memset(cell, 0, SPAN);
    for (size_t i = 0; i < n; i++) {
        uint64_t from = (uint64_t)(rand() % (SPAN - 1));
        uint64_t to = from + 1 + (uint64_t)(rand() % (int)max_len);
        if (to > SPAN)
            to = SPAN;
        iv[i][0] = from;
        iv[i][1] = to;
        memset(cell + from, 1, to - from);
    }
}

/* The merged intervals are the cells' runs, one for one. */
static void check_runs(const uint64_t (*iv)[2], size_t m, uint64_t covered, const char cell[SPAN])
{
    uint64_t cells = 0, runs = 0;
    for (size_t t = 0; t < SPAN; t++) {
        cells += cell[t];
        runs += cell[t] && (t == 0 || !cell[t - 1]);
    }
    CHECK(m == runs);
    CHECK(covered == cells);
    for (size_t i = 0; i < m; i++) {
        CHECK(iv[i][0] < iv[i][1]);
        CHECK(i == 0 || iv[i - 1][1] < iv[i][0]);  /* in order, apart: touching ones were joined */
        CHECK(iv[i][0] == 0 || !cell[iv[i][0] - 1]);
        CHECK(iv[i][1] == SPAN || !cell[iv[i][1]]);
        for (uint64_t t = iv[i][0]; t < iv[i][1] && t < SPAN; t++)
            CHECK(cell[t]);
    }
}

void test_intervals(void)
{
    static uint64_t iv[400][2];
    char cell[SPAN];
    srand(7);
    for (int round = 0; round < 200; round++) {
        size_t n = (size_t)(round % 40) * 10;  /* 0 to 390: sparse to covering */
        random_intervals(iv, n, round % 2 ? 8 : 60, cell);
        uint64_t covered = 12345;
        size_t m = intervals_merge(iv, n, &covered);
        check_runs((const uint64_t (*)[2])iv, m, covered, cell);
    }
    /* Touching and nested, given out of order; no `covered` wanted. */
    uint64_t t[4][2] = {{30, 40}, {10, 20}, {20, 30}, {12, 18}};
    CHECK(intervals_merge(t, 4, NULL) == 1 && t[0][0] == 10 && t[0][1] == 40);
    /* Empty ones left out, alone or within another. */
    uint64_t e[3][2] = {{50, 50}, {10, 20}, {15, 15}};
    CHECK(intervals_merge(e, 3, NULL) == 1 && e[0][0] == 10 && e[0][1] == 20);
    /* Nothing: nothing covered. */
    uint64_t covered = 1;
    CHECK(intervals_merge(t, 0, &covered) == 0 && covered == 0);
}
