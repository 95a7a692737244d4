/* The One-sided section (analyze/onesided.h, s->onesided): what each rank
 * put to whom, and how long its waits for its peers' signals waited; and
 * --json's "onesided". */
#include "render.h"

#include <inttypes.h>
#include <stdio.h>

#include "format.h"
#include "summary.h"

#define ONESIDED_ROWS 32  /* rows of each table in the text; --json has them all */

static void print_flows(const struct onesided *o, FILE *out)
{
    fprintf(out, "  %-16s %6s %6s %10s %10s %10s\n", "comm", "from", "to", "puts", "bytes", "signals");
    for (size_t i = 0; i < o->nflows && i < ONESIDED_ROWS; i++) {
        const struct onesided_flow *f = &o->flows[i];
        char bytes[16];
        fprintf(out, "  %016" PRIx64 " %6d %6d %10" PRIu64 " %10s %10" PRIu64 "\n", f->comm, f->src, f->dst,
                f->puts, human_bytes((double)f->bytes, bytes), f->signals);
    }
    if (o->nflows > ONESIDED_ROWS)
        fprintf(out, "  ... %zu more (--json has them all)\n", o->nflows - ONESIDED_ROWS);
}

static void print_waits(const struct onesided *o, FILE *out)
{
    fprintf(out, "  %-16s %6s %8s %8s %12s %12s\n", "comm", "rank", "for", "waits", "total_ms", "max_ms");
    for (size_t i = 0; i < o->nwaits && i < ONESIDED_ROWS; i++) {
        const struct onesided_wait *w = &o->waits[i];
        char peer[16];
        snprintf(peer, sizeof peer, "%d", w->peer);
        fprintf(out, "  %016" PRIx64 " %6d %8s %8" PRIu64 " %12.3f %12.3f\n", w->comm, w->rank,
                w->peer < 0 ? "several" : peer, w->waits, w->total_us / 1e3, w->max_us / 1e3);
    }
    if (o->nwaits > ONESIDED_ROWS)
        fprintf(out, "  ... %zu more (--json has them all)\n", o->nwaits - ONESIDED_ROWS);
}

void print_onesided(const struct report_summary *s, FILE *out)
{
    const struct onesided *o = &s->onesided;
    if (!o->nflows && !o->nwaits)
        return;
    fputs("\nOne-sided: what each rank put to whom (PutSignal, Signal), and its waits for signals (WaitSignal)\n",
          out);
    if (o->nflows)
        print_flows(o, out);
    if (o->nwaits) {
        fputs("  a wait lasts until the signals it needs arrived: long waits are the peer's lateness\n", out);
        print_waits(o, out);
    }
}

json_t *onesided_json(const struct report_summary *s)
{
    const struct onesided *o = &s->onesided;
    json_t *flows = json_array(), *waits = json_array();
    char id[17];
    for (size_t i = 0; i < o->nflows; i++) {
        const struct onesided_flow *f = &o->flows[i];
        snprintf(id, sizeof id, "%016" PRIx64, f->comm);
        json_array_append_new(flows, json_pack("{s:s, s:i, s:i, s:I, s:I, s:I}", "comm", id, "from", f->src, "to",
                                               f->dst, "puts", (json_int_t)f->puts, "bytes", (json_int_t)f->bytes,
                                               "signals", (json_int_t)f->signals));
    }
    for (size_t i = 0; i < o->nwaits; i++) {
        const struct onesided_wait *w = &o->waits[i];
        snprintf(id, sizeof id, "%016" PRIx64, w->comm);
        json_array_append_new(waits, json_pack("{s:s, s:i, s:o, s:I, s:f, s:f}", "comm", id, "rank", w->rank, "for",
                                               w->peer < 0 ? json_null() : json_integer(w->peer), "waits",
                                               (json_int_t)w->waits, "total_us", w->total_us, "max_us", w->max_us));
    }
    return json_pack("{s:o, s:o}", "flows", flows, "waits", waits);
}
