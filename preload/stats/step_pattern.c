#include "stats/step_pattern.h"

#include <math.h>
#include <stdlib.h>

bool tap_step_keys_repeat(const uint32_t *key, size_t n, size_t p)
{
    if (p == 0 || 3 * p > n)
        return false;
    size_t same = 0;
    for (size_t i = 0; i + p < n; i++)
        same += key[i] == key[i + p];
    return (double)same >= TAP_STEP_MIN_MATCH * (double)(n - p);
}

size_t tap_step_pattern_period(const uint32_t *key, size_t n, size_t max_period)
{
    for (size_t p = 1; p <= max_period && 3 * p <= n; p++)
        if (tap_step_keys_repeat(key, n, p))
            return p;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place); 0 for none. */
static double median(double *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Scratch for regular_starts, allocated once per search. */
struct scratch {
    double *big, *other;
    size_t *at;
};

/* Whether the calls whose gap is `threshold` or more come every `q` calls
 * (TAP_STEP_MIN_REGULAR of the distances between them) and their gaps
 * stand out (a median TAP_STEP_MIN_BREAK times the others'): *phase
 * then, the most frequent of their positions modulo q. */
static bool regular_starts(const double *gap_ns, size_t n, size_t first, double threshold, size_t q,
                           struct scratch *w, size_t *phase)
{
    size_t nd = 0, same = 0, nb = 0, no = 0, prev = SIZE_MAX;
    for (size_t f = 0; f < q; f++)
        w->at[f] = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(gap_ns[i]))
            continue;
        if (gap_ns[i] < threshold) {
            w->other[no++] = gap_ns[i];
            continue;
        }
        w->big[nb++] = gap_ns[i];
        w->at[(first + i) % q]++;
        if (prev != SIZE_MAX) {
            nd++;
            same += i - prev == q;
        }
        prev = i;
    }
    bool ok = nd >= 2 && no && (double)same >= TAP_STEP_MIN_REGULAR * (double)nd &&
              median(w->big, nb) >= TAP_STEP_MIN_BREAK * median(w->other, no);
    for (size_t f = 0; ok && f < q; f++)
        *phase = w->at[f] > w->at[*phase] ? f : *phase;
    return ok;
}

/* The median of the sorted g[a..b); 0 for none. */
static double median_sorted(const double *g, size_t a, size_t b)
{
    size_t n = b - a;
    if (!n)
        return 0;
    return n % 2 ? g[a + n / 2] : (g[a + n / 2 - 1] + g[a + n / 2]) / 2;
}

/* Whether, with the calls whose gap is `threshold` or more as the steps'
 * starts, their gaps stand out of the others' (regular_starts' last
 * condition, from the sorted gaps g[0..ng), in O(log ng)): most periods
 * fail here, before a pass over the calls. */
static bool gaps_stand_out(const double *g, size_t ng, double threshold)
{
    size_t lo = 0, hi = ng;  /* the first gap >= threshold */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g[mid] < threshold)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && median_sorted(g, lo, ng) >= TAP_STEP_MIN_BREAK * median_sorted(g, 0, lo);
}

bool tap_step_by_gap(const uint32_t *key, const double *gap_ns, size_t n, size_t first, size_t pattern,
                     size_t max_period, size_t *period, size_t *phase)
{
    double *g = malloc((n ? n : 1) * sizeof *g);
    struct scratch w = {malloc((n ? n : 1) * sizeof *w.big), malloc((n ? n : 1) * sizeof *w.other),
                        malloc((max_period + 1) * sizeof *w.at)};
    if (!g || !w.big || !w.other || !w.at) {
        free(g);
        free(w.big);
        free(w.other);
        free(w.at);
        return false;
    }
    size_t ng = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(gap_ns[i]))
            g[ng++] = gap_ns[i];
    qsort(g, ng, sizeof *g, cmp_double);
    bool found = false;
    /* The top 1/q of the gaps start the steps of period q. */
    for (size_t q = pattern < 2 ? 2 : pattern; pattern && !found && q <= max_period && 3 * q <= ng; q += pattern) {
        *phase = 0;
        double threshold = g[ng - ng / q];
        if (gaps_stand_out(g, ng, threshold) && tap_step_keys_repeat(key, n, q) &&
            regular_starts(gap_ns, n, first, threshold, q, &w, phase)) {
            *period = q;
            found = true;
        }
    }
    free(g);
    free(w.big);
    free(w.other);
    free(w.at);
    return found;
}

size_t tap_step_phase_of_longest_gap(const double *gap_ns, size_t n, size_t period)
{
    size_t best = 0;
    double best_gap = -1;
    for (size_t f = 0; f < period; f++) {
        double sum = 0;
        size_t k = 0;
        for (size_t i = f; i < n; i += period)
            if (!isnan(gap_ns[i])) {
                sum += gap_ns[i];
                k++;
            }
        if (k && sum / (double)k > best_gap) {
            best_gap = sum / (double)k;
            best = f;
        }
    }
    return best;
}
