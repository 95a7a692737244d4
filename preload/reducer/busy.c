#include "reducer/busy.h"

#include <string.h>

/* Intervals complete in stream order, but streams complete out of order
 * with each other: the recent ones are kept as disjoint spans sorted by
 * start, and the oldest span is folded into `folded_ns` when there are too
 * many. An interval that begins before the end of a folded span (a stream
 * far behind the others) is counted from that end on: what it shares with
 * the folded spans cannot be told any more, and leaving it out keeps the
 * union a union, never more than the wall time. */
#define SPANS 64

struct span {
    uint64_t start, end;
};

static struct span spans[SPANS + 1];
static unsigned nspans;
static uint64_t folded_ns, folded_until, sum_ns;

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
    unsigned lo = 0;
    while (lo < nspans && spans[lo].end < start_ns)
        lo++;
    unsigned hi = lo;
    while (hi < nspans && spans[hi].start <= end_ns) {
        if (spans[hi].start < start_ns)
            start_ns = spans[hi].start;
        if (spans[hi].end > end_ns)
            end_ns = spans[hi].end;
        hi++;
    }
    memmove(&spans[lo + 1], &spans[hi], (nspans - hi) * sizeof *spans);
    nspans = nspans - (hi - lo) + 1;
    spans[lo] = (struct span){start_ns, end_ns};
    if (nspans > SPANS) {
        folded_ns += spans[0].end - spans[0].start;
        folded_until = spans[0].end;
        memmove(&spans[0], &spans[1], --nspans * sizeof *spans);
    }
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
