#include "intervals.h"

#include <stdlib.h>

static int cmp_from(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

size_t intervals_merge(uint64_t (*iv)[2], size_t n, uint64_t *covered)
{
    if (n > 1)
        qsort(iv, n, sizeof *iv, cmp_from);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (iv[i][1] <= iv[i][0])
            continue;
        if (out && iv[i][0] <= iv[out - 1][1]) {
            if (iv[i][1] > iv[out - 1][1])
                iv[out - 1][1] = iv[i][1];
        } else {
            iv[out][0] = iv[i][0];
            iv[out][1] = iv[i][1];
            out++;
        }
    }
    if (covered) {
        *covered = 0;
        for (size_t i = 0; i < out; i++)
            *covered += iv[i][1] - iv[i][0];
    }
    return out;
}
