#include "stats/stat_row.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tap_stat_init(struct tap_stat *s)
{
    memset(s, 0, sizeof *s);
    s->time_min_ns = UINT64_MAX;
}

void tap_stat_release(struct tap_stat *s)
{
    free(s->hist);
    s->hist = NULL;
}

unsigned tap_stat_hist_bucket(uint64_t ns)
{
    if (ns <= 1)
        return 0;
    double b = log((double)ns) / log(TAP_HIST_BASE);
    return b >= TAP_HIST_BUCKETS - 1 ? TAP_HIST_BUCKETS - 1 : (unsigned)b;
}

int tap_stat_add_time(struct tap_stat *s, const struct tap_timing *t)
{
    if (!s->hist && !(s->hist = calloc(TAP_HIST_BUCKETS, sizeof *s->hist)))
        return -1;
    uint64_t d = t->duration_ns;
    s->timed++;
    if (!s->has_first) {
        s->has_first = true;
        s->first_ns = d;
        return 0;
    }
    s->steady++;
    s->time_sum_ns += d;
    if (d < s->time_min_ns)
        s->time_min_ns = d;
    if (d > s->time_max_ns)
        s->time_max_ns = d;
    s->hist[tap_stat_hist_bucket(d)]++;
    s->bw_bytes += t->bytes;
    s->bw_busbytes += t->busbytes;
    if (d > 0) {
        s->algbw_sum += t->bytes / (double)d; /* bytes/ns = GB/s */
        s->busbw_sum += t->busbytes / (double)d;
    }
    return 0;
}

static void add_site_time(struct tap_site_stat *s, const struct tap_timing *t)
{
    s->timed++;
    s->time_sum_ns += t->duration_ns;
    s->bw_bytes += t->bytes;
    s->bw_busbytes += t->busbytes;
}

int tap_stat_add_call_detail(struct tap_stat *s, struct tap_site_stat *site, uint64_t bytes,
                             const struct tap_timing *t)
{
    if (t && t->stamped) {
        s->stamped++;
        t = NULL;
    }
    if (site) {
        site->calls++;
        site->bytes_total += bytes;
    }
    if (!t)
        return 0;
    /* The row's first timed call is kept apart from its statistics
     * (first_ns: a connection set up lazily can take 10^4 times the
     * steady time), and so from its site's. */
    bool first = !s->has_first;
    int rc = tap_stat_add_time(s, t);
    if (site && !first)
        add_site_time(site, t);
    return rc;
}

double tap_stat_quantile_ns(const struct tap_stat *s, double q)
{
    if (!s->steady || !s->hist)
        return 0;
    uint64_t want = (uint64_t)ceil(q * (double)s->steady);
    if (want < 1)
        want = 1;
    uint64_t seen = 0;
    for (unsigned b = 0; b < TAP_HIST_BUCKETS; b++) {
        seen += s->hist[b];
        if (seen >= want) {
            double v = pow(TAP_HIST_BASE, b + 0.5);
            /* The extremes are known exactly; never report beyond them. */
            if (v < (double)s->time_min_ns)
                v = (double)s->time_min_ns;
            if (v > (double)s->time_max_ns)
                v = (double)s->time_max_ns;
            return v;
        }
    }
    return (double)s->time_max_ns;
}
