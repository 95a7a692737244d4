/* `--json`'s cross-rank keys: "crossrank" (what was matched, the clocks,
 * what was dropped, each rank's own wait, the ranks every slow pair goes
 * through, what nothing could be compared with, each communicator's links
 * and the ranks whose links stand apart), "stragglers",
 * "slow_transfers". */
#include "render.h"
#include "crossrank_base.h"

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

/* o["worst_replays"]: the replay numbers of the worst instances, when one
 * is an execution of a captured call (the same instance as worst_seqs'). */
static void add_replays(json_t *o, const uint64_t *replay, size_t n)
{
    bool any = false;
    for (size_t i = 0; i < n; i++)
        any |= replay[i] != 0;
    if (any)
        json_object_set_new(o, "worst_replays", seqs(replay, n));
}

/* "waits": each rank's own wait (latest start minus its own), per comm. */
static json_t *waits_json(const struct report *r, const struct crossrank *x)
{
    json_t *a = json_array();
    for (size_t i = 0; x && i < x->nwaits; i++) {
        const struct xr_wait *w = &x->waits[i];
        json_array_append_new(a, json_pack("{s:o, s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f}",
            "comm", comm_id(w->comm), "rank", w->rank, "host", r->files[w->file].host,
            "pid", (json_int_t)r->files[w->file].pid, "instances", (json_int_t)w->instances,
            "decided", (json_int_t)w->decided, "measured", (json_int_t)w->measured,
            "calls", (json_int_t)w->calls, "wait_us_mean", w->wait_us_mean, "wait_us_total", w->wait_us_total,
            "wait_us_max", w->wait_us_max));
    }
    return a;
}

/* "expect_busbw": what NCCLTAP_EXPECT_BUSBW_GBS said, and "uncompared":
 * the (op, size)s of one communicator, with no busbw expected for them. */
static void add_references(json_t *o, const struct crossrank *x, const struct report *r)
{
    json_t *e = json_array();
    for (size_t i = 0; x && i < x->nexpect; i++)
        json_array_append_new(e, json_pack("{s:s?, s:f, s:I}", "op",
            x->expect[i].op_name[0] ? x->expect[i].op_name : NULL, "busbw_gbs", x->expect[i].gbs,
            "min_bytes", (json_int_t)x->expect[i].min_bytes));
    json_object_set_new(o, "expect_busbw", e);
    json_object_set_new(o, "expect_error", x && x->expect_error
        ? json_sprintf("%s: '%s'", x->expect_error, x->expect_bad) : json_null());
    json_t *u = json_object();
    json_object_set_new(u, "count", json_integer((json_int_t)(x ? x->uncompared : 0)));
    if (x && x->uncompared) {
        json_object_set_new(u, "op", json_string(report_name(r, x->uncompared_op)));
        json_object_set_new(u, "bytes", json_integer((json_int_t)x->uncompared_bytes));
        json_object_set_new(u, "busbw_gbs", json_real(x->uncompared_gbs));
    }
    json_object_set_new(o, "uncompared", u);
    json_t *s = json_array();
    for (size_t i = 0; x && i < x->nsuspects; i++)
        json_array_append_new(s, json_pack("{s:o, s:i, s:I}", "comm", comm_id(x->suspects[i].comm),
            "rank", x->suspects[i].rank, "pairs", (json_int_t)x->suspects[i].pairs));
    json_object_set_new(o, "slow_link_ranks", s);
}

/* "links": each communicator's send/recv busbw per pair and transfer time
 * per rank. */
static json_t *links_json(const struct report *r, const struct crossrank *x)
{
    json_t *a = json_array();
    for (size_t i = 0; x && i < x->nlinks; i++) {
        const struct xr_links *l = &x->links[i];
        json_t *cells = json_array();
        for (size_t k = 0; k < l->ncells; k++)
            json_array_append_new(cells, json_pack("{s:i, s:i, s:I, s:f}", "src", l->cells[k].src,
                "dst", l->cells[k].dst, "transfers", (json_int_t)l->cells[k].transfers,
                "busbw_gbs", l->cells[k].busbw_gbs));
        json_t *coll = json_null();
        if (l->transfer_us) {
            json_t *t = json_array();
            for (int k = 0; k < l->nranks; k++)
                json_array_append_new(t, json_real(l->transfer_us[k]));
            coll = json_pack("{s:s, s:I, s:I, s:o}", "op", report_name(r, l->coll_op),
                "bytes", (json_int_t)l->coll_bytes, "instances", (json_int_t)l->coll_instances,
                "transfer_us", t);
        }
        json_array_append_new(a, json_pack("{s:o, s:i, s:I, s:o, s:o}", "comm", comm_id(l->comm),
            "nranks", l->nranks, "p2p_bytes", (json_int_t)l->p2p_bytes, "pairs", cells,
            "collective", coll));
    }
    return a;
}

/* "slow_links": the ranks (or the 2-rank pair) whose links stand apart. */
static json_t *slow_links_json(const struct crossrank *x)
{
    json_t *a = json_array();
    for (size_t i = 0; x && i < x->nslow_links; i++) {
        const struct xr_slow_link *s = &x->slow_links[i];
        json_t *o = json_pack("{s:o, s:s, s:s, s:I}", "comm", comm_id(s->comm),
            "from", s->p2p ? "send/recv" : "collectives",
            "reference", s->reference == XR_REF_JOB ? "others" : "expected", "bytes", (json_int_t)s->bytes);
        json_object_set_new(o, "rank", s->rank >= 0 ? json_integer(s->rank) : json_null());
        json_object_set_new(o, "ranks", s->rank >= 0 ? json_pack("[i]", s->rank)
                                                      : json_pack("[i, i]", s->src, s->dst));
        if (s->p2p) {
            json_object_set_new(o, "pairs", json_integer((json_int_t)s->pairs));
            json_object_set_new(o, "busbw_gbs", json_real(s->busbw_gbs));
            json_object_set_new(o, "fastest_gbs", json_real(s->fastest_gbs));
            json_object_set_new(o, "others_gbs", json_real(s->others_gbs));
        } else {
            json_object_set_new(o, "transfer_us", json_real(s->transfer_us));
            json_object_set_new(o, "others_us", json_real(s->others_us));
        }
        json_array_append_new(a, o);
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
    if (o) {
        add_references(o, x, r);
        json_object_set_new(o, "links", links_json(r, x));
        json_object_set_new(o, "slow_links", slow_links_json(x));
    }
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
        json_t *o = json_pack("{s:o, s:i, s:s, s:I, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:o, "
                              "s:s, s:f, s:f, s:o}",
            "comm", comm_id(s->comm), "rank", s->rank, "host", r->files[s->file].host,
            "pid", (json_int_t)r->files[s->file].pid, "last_fraction", s->last_fraction,
            "wait_us_mean", s->wait_us_mean, "caused_us_total", s->caused_us_total,
            "caused_share", s->caused_share, "wait_us_median", s->wait_us_median, "last", (json_int_t)s->last,
            "instances", (json_int_t)s->instances, "decided", (json_int_t)s->decided,
            "measured", (json_int_t)s->measured, "calls", (json_int_t)s->calls, "ops", ops,
            "op", report_name(r, s->op), "gap_before_late_us", s->gap_late_us,
            "gap_before_others_us", s->gap_other_us, "worst_seqs", seqs(s->worst_seq, s->nworst));
        add_replays(o, s->worst_replay, s->nworst);
        json_array_append_new(a, o);
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
        json_t *expected = s->expected_gbs > 0 ? json_real(s->expected_gbs) : json_null();
        json_t *o = json_pack("{s:o, s:s, s:I, s:o, s:f, s:f, s:o, s:s, s:I, s:I, s:o}",
            "comm", comm_id(s->comm), "op", report_name(r, s->op), "bytes", (json_int_t)s->bytes,
            "ranks", ranks, "busbw_gbs", s->busbw_gbs, "median_busbw_gbs", s->median_busbw_gbs,
            "expected_busbw_gbs", expected,
            "reference", s->reference == XR_REF_JOB ? "job" : "expected",
            "instances", (json_int_t)s->instances, "slow", (json_int_t)s->slow,
            s->p2p ? "worst_orders" : "worst_seqs", seqs(s->worst_seq, s->nworst));
        add_replays(o, s->worst_replay, s->nworst);
        json_array_append_new(a, o);
    }
    return a;
}
