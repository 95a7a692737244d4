#include "reducer/busy.h"

#include <string.h>

/* Intervals complete in stream order, but streams complete out of order
 * with each other: the recent ones are kept as disjoint spans sorted by
 * start, at least SPANS of them, and past SPANS_MAX the oldest are folded
 * into `folded_ns` down to SPANS, at once (one move for SPANS intervals:
 * moving the array at every interval cost the reducer more than the rest
 * of the union). An interval that begins before the end of a folded span
 * (a stream far behind the others) is counted from that end on: what it
 * shares with the folded spans cannot be told any more, and leaving it out
 * keeps the union a union, never more than the wall time. */
#define SPANS 64
#define SPANS_MAX (2 * SPANS)

struct span {
    uint64_t start, end;
};

static struct span spans[SPANS_MAX + 1];
static unsigned nspans;
static uint64_t folded_ns, folded_until, sum_ns;

/* The first span that ends at or after t (nspans: none); most intervals
 * come after every span, so the search starts from the newest. */
static unsigned first_ending_from(uint64_t t)
{
    if (!nspans || spans[nspans - 1].end < t)
        return nspans;
    unsigned lo = 0, hi = nspans - 1;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (spans[mid].end < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void fold_oldest(void)
{
    unsigned n = nspans - SPANS;
    for (unsigned i = 0; i < n; i++)
        folded_ns += spans[i].end - spans[i].start;
    folded_until = spans[n - 1].end;
    memmove(&spans[0], &spans[n], SPANS * sizeof *spans);
    nspans = SPANS;
}

void tap_busy_add(uint64_t start_ns, uint64_t end_ns)
{
    if (end_ns <= start_ns)
        return;
    sum_ns += end_ns - start_ns;
    if (end_ns <= folded_until)
        return;
    if (start_ns < folded_until)
        start_ns = folded_until;
    /* Spans [lo, hi) overlap or touch the new one: merge them into it. */
    unsigned lo = first_ending_from(start_ns);
    unsigned hi = lo;
    while (hi < nspans && spans[hi].start <= end_ns) {
        if (spans[hi].start < start_ns)
            start_ns = spans[hi].start;
        if (spans[hi].end > end_ns)
            end_ns = spans[hi].end;
        hi++;
    }
    if (hi != lo + 1)
        memmove(&spans[lo + 1], &spans[hi], (nspans - hi) * sizeof *spans);
    nspans = nspans - (hi - lo) + 1;
    spans[lo] = (struct span){start_ns, end_ns};
    if (nspans > SPANS_MAX)
        fold_oldest();
}

uint64_t tap_busy_union_ns(void)
{
    uint64_t ns = folded_ns;
    for (unsigned i = 0; i < nspans; i++)
        ns += spans[i].end - spans[i].start;
    return ns;
}

uint64_t tap_busy_sum_ns(void) { return sum_ns; }

void tap_busy_reset(void)
{
    nspans = 0;
    folded_ns = folded_until = sum_ns = 0;
}
