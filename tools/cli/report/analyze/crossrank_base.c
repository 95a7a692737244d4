/* The helpers the cross-rank files share (crossrank_base.h). */
#include "crossrank_base.h"
#include "nccl/nccl_ops.h"

#include <stdlib.h>

double xr_bus_factor(const char *name, int n)
{
    int op = tap_op_from_name(name);
    return n < 1 || op < 0 ? 1 : tap_op_busbw_factor((enum tap_op)op, n);
}

bool xr_is_p2p(const char *name)
{
    return tap_op_is_p2p(tap_op_from_name(name));
}

bool xr_is_rooted(const char *name)
{
    return tap_op_is_rooted(tap_op_from_name(name));
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double xr_median(double *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void xr_keep_worst(uint64_t seq[3], uint64_t replay[3], double val[3], size_t *n, uint64_t s, uint64_t rp,
                   double v, bool highest)
{
    size_t i = *n;
    if (i == 3) {
        if (highest ? v <= val[2] : v >= val[2])
            return;
        i = 2;
    } else {
        (*n)++;
    }
    for (; i > 0 && (highest ? val[i - 1] < v : val[i - 1] > v); i--) {
        val[i] = val[i - 1];
        seq[i] = seq[i - 1];
        replay[i] = replay[i - 1];
    }
    val[i] = v;
    seq[i] = s;
    replay[i] = rp;
}

const struct xr_instance *xr_find(const struct crossrank *x, uint64_t comm, uint64_t seq, uint64_t replay)
{
    size_t lo = 0, hi = x->ninstances;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct xr_instance *in = &x->instances[mid];
        if (in->comm < comm || (in->comm == comm && (in->seq < seq || (in->seq == seq && in->replay < replay))))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->ninstances && x->instances[lo].comm == comm && x->instances[lo].seq == seq &&
           x->instances[lo].replay == replay ? &x->instances[lo] : NULL;
}
