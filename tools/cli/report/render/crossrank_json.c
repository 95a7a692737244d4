/* `--json`'s cross-rank keys: "crossrank" (what was matched, the clocks,
 * what was dropped, each rank's own wait), "stragglers",
 * "slow_transfers". */
#include "render.h"
#include "crossrank.h"

#include <inttypes.h>
#include <stdio.h>

static json_t *comm_id(uint64_t id)
{
    char s[17];
    snprintf(s, sizeof s, "%016" PRIx64, id);
    return json_string(s);
}

static json_t *seqs(const uint64_t *seq, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer((json_int_t)seq[i]));
    return a;
}

/* "waits": each rank's own wait (latest start minus its own), per comm. */
static json_t *waits_json(const struct report *r, const struct crossrank *x)
{
    json_t *a = json_array();
    for (size_t i = 0; x && i < x->nwaits; i++) {
        const struct xr_wait *w = &x->waits[i];
        json_array_append_new(a, json_pack("{s:o, s:i, s:s, s:I, s:I, s:f, s:f, s:f}",
            "comm", comm_id(w->comm), "rank", w->rank, "host", r->files[w->file].host,
            "pid", (json_int_t)r->files[w->file].pid, "instances", (json_int_t)w->instances,
            "wait_us_mean", w->wait_us_mean, "wait_us_total", w->wait_us_total,
            "wait_us_max", w->wait_us_max));
    }
    return a;
}

json_t *crossrank_json(const struct report *r)
{
    const struct crossrank *x = r->cross;
    uint64_t dropped = 0;
    for (size_t i = 0; i < r->nfiles; i++)
        dropped += r->files[i].events_dropped;
    json_t *hosts = json_array();
    for (size_t h = 0; x && h < x->nhosts; h++)
        json_array_append_new(hosts, json_pack("{s:s, s:I, s:f, s:f, s:I, s:b, s:I, s:I}",
            "host", x->hosts[h].host, "offset_ns", (json_int_t)x->hosts[h].offset_ns,
            "error_us", x->hosts[h].error_ns / 1e3, "spread_us", x->hosts[h].spread_ns / 1e3,
            "processes", (json_int_t)x->hosts[h].files, "estimated", x->hosts[h].estimated,
            "samples", (json_int_t)x->hosts[h].samples, "rejected", (json_int_t)x->hosts[h].rejected));
    json_t *o = json_pack("{s:o, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:o}", "hosts", hosts,
        "error_us", x ? x->clock_error_ns / 1e3 : 0.0,
        "threshold_us", x ? x->threshold_ns / 1e3 : 0.0,
        "instances", (json_int_t)(x ? x->ninstances : 0),
        "incomplete", (json_int_t)(x ? x->incomplete : 0),
        "pairs", (json_int_t)(x ? x->npairs : 0),
        "unmatched", (json_int_t)(x ? x->unmatched : 0),
        "records_dropped", (json_int_t)dropped,
        "waits", waits_json(r, x));
    return o;
}

json_t *stragglers_json(const struct report *r)
{
    const struct crossrank *x = r->cross;
    json_t *a = json_array();
    for (size_t i = 0; x && i < x->nstragglers; i++) {
        const struct xr_straggler *s = &x->stragglers[i];
        json_t *ops = json_array();
        for (size_t k = 0; k < s->nops; k++)
            json_array_append_new(ops, json_string(report_name(r, s->ops[k])));
        json_array_append_new(a, json_pack("{s:o, s:i, s:s, s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:o, s:o}",
            "comm", comm_id(s->comm), "rank", s->rank, "host", r->files[s->file].host,
            "pid", (json_int_t)r->files[s->file].pid, "last_fraction", s->last_fraction,
            "wait_us_mean", s->wait_us_mean, "wait_us_total", s->wait_us_total,
            "wait_us_median", s->wait_us_median, "last", (json_int_t)s->last,
            "instances", (json_int_t)s->instances, "ops", ops,
            "worst_seqs", seqs(s->worst_seq, s->nworst)));
    }
    return a;
}

json_t *slow_transfers_json(const struct report *r)
{
    const struct crossrank *x = r->cross;
    json_t *a = json_array();
    for (size_t i = 0; x && i < x->nslow; i++) {
        const struct xr_slow *s = &x->slow[i];
        json_t *ranks = json_array();
        if (s->p2p) {
            json_array_append_new(ranks, json_integer(s->src));
            json_array_append_new(ranks, json_integer(s->dst));
        } else {
            for (int k = 0; k < s->nranks; k++)
                json_array_append_new(ranks, json_integer(k));
        }
        json_array_append_new(a, json_pack("{s:o, s:s, s:I, s:o, s:f, s:f, s:I, s:I, s:o}",
            "comm", comm_id(s->comm), "op", report_name(r, s->op), "bytes", (json_int_t)s->bytes,
            "ranks", ranks, "busbw_gbs", s->busbw_gbs, "median_busbw_gbs", s->median_busbw_gbs,
            "instances", (json_int_t)s->instances, "slow", (json_int_t)s->slow,
            s->p2p ? "worst_orders" : "worst_seqs", seqs(s->worst_seq, s->nworst)));
    }
    return a;
}
