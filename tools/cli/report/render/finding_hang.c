/* The HANG and STALL findings' words, next step and JSON evidence: a
 * collective some rank never reached, or one that stalled past the hang
 * timeout and then completed (a row each of finding_kinds.c). */
#include "finding_hang.h"
#include "finding_text.h"
#include "escape.h"
#include "format.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

/* " float32 sum root 2": what else a hang's call was given, where known. */
static void print_call_detail(const struct hang_call *c, FILE *out)
{
    char dtype[SHOWN_MAX];
    if (c->dtype[0])
        fprintf(out, " %s", shown(c->dtype, dtype));
    if (op_redop_name(c->redop))
        fprintf(out, " %s", op_redop_name(c->redop));
    if (c->root >= 0)
        fprintf(out, " root %d", c->root);
}

/* "rank 1 (host h, pid p) waits in AllGather 4.0M, where 3 ranks (0, 2-3)
 * wait in AllReduce 1.0M": the calls that differ, then the most common;
 * a call that completed on its ranks' side (the same bytes: NCCL paired
 * it) "called ..., which completed on its side". */
static void print_hang_calls(const struct finding *f, FILE *out)
{
    const struct hang_instance *h = f->evidence.hang.hang;
    for (size_t k = 1; k <= h->ncalls; k++) {
        const struct hang_call *c = &h->calls[k % h->ncalls];
        char op[SHOWN_MAX], size[16];
        if (k > 1)
            fputs(k == h->ncalls ? ", where " : ", ", out);
        if (c->nranks == 1) {
            fprintf(out, "rank %d", c->ranks[0]);
        } else {
            fprintf(out, "%zu ranks (", c->nranks);
            print_rank_list(c->ranks, c->nranks, out);
            fputc(')', out);
        }
        if (k == 1)
            finding_process(f->file, out);
        if (c->completed)
            fprintf(out, " called %s %s", shown(c->op, op), human_bytes((double)c->bytes, size));
        else
            fprintf(out, " wait%s in %s %s", c->nranks == 1 ? "s" : "", shown(c->op, op),
                    human_bytes((double)c->bytes, size));
        print_call_detail(c, out);
        if (c->completed)
            fputs(c->nranks == 1 ? ", which completed on its side" : ", which completed on their side", out);
    }
}

/* Rank m never reached the stuck op: where it stopped. */
static void print_missing(const struct finding *f, const struct hang_missing *m, FILE *out)
{
    fprintf(out, "rank %d", m->rank);
    finding_process(f->file, out);
    /* Below S - 1, the latest op known complete there: auto timed none
     * of the ops between, and its GPU stopped somewhere after. */
    if (m->issued_stuck && m->last_seq >= 0)
        fprintf(out, m->last_seq + 1 == (int64_t)f->seq ? " never reached it (its GPU stopped at seq %" PRId64 ")"
                : " never reached it (its GPU known to have completed up to seq %" PRId64 ")", m->last_seq);
    else if (m->issued_stuck)
        fputs(" never reached it (its GPU completed no op on this communicator)", out);
    else if (m->last_seq >= 0)
        fprintf(out, " never issued it (its last op is seq %" PRId64 ")", m->last_seq);
    else
        fputs(" issued no op on this communicator", out);
}

static void print_hang_finding(const struct finding *f, FILE *out)
{
    const struct hang_evidence *e = &f->evidence.hang;
    const struct hang_instance *h = e->hang;
    char op[SHOWN_MAX], d[32];
    fprintf(out, "comm %016" PRIx64 " %s seq %" PRIu64 ": ", f->comm, shown(f->op, op), f->seq);
    if (e->mismatched) {
        fputs("a mismatch, not a missing rank: ", out);
        print_hang_calls(f, out);
        fprintf(out, ", for %s", finding_duration(e->waited_us, d));
    } else if (h->nmissing) {
        print_missing(f, &h->missing[0], out);
        if (h->nmissing > 1)
            fprintf(out, ", and %zu more rank%s", h->nmissing - 1, h->nmissing == 2 ? "" : "s");
        fprintf(out, ", %s ", h->nstuck == 1 ? "rank" : "ranks");
        if (h->nstuck)
            print_rank_list(h->stuck, h->nstuck, out);
        else
            fputs("none", out);
        fprintf(out, " waiting %s", finding_duration(e->waited_us, d));
    } else {
        fputs(h->nstuck == 1 ? "rank " : "ranks ", out);
        print_rank_list(h->stuck, h->nstuck, out);
        fprintf(out, "%s waiting %s %s: which rank's GPU did not reach it cannot be told", h->nstuck == 1 ? "" : " all",
                h->done_before >= 0 ?
                "in it or before it" : "in it", finding_duration(e->waited_us, d));
        if (h->done_before >= 0)
            fprintf(out, " (GPUs known to have completed up to seq %" PRId64 "; auto timed none of the ops since: "
                    "NCCLTAP_TIMING=all times every op)", h->done_before);
        else if (e->untimed)
            fputs(" (auto timed it on no rank; NCCLTAP_TIMING=all times every op)", out);
    }
    print_finding_site(e->site, out);
}

/* A hang that completed later: who waited, for whom, how long. */
void finding_hang_line(const struct finding *f, const char *sep, FILE *out)
{
    (void)sep;
    print_hang_finding(f, out);
}

/* A hang that completed later: who waited, for whom, how long. */
void finding_stall_line(const struct finding *f, const char *sep, FILE *out)
{
    (void)sep;
    const struct hang_evidence *e = &f->evidence.hang;
    char op[SHOWN_MAX], d[32];
    fprintf(out, "comm %016" PRIx64 " %s seq %" PRIu64 ": ", f->comm, shown(f->op, op), f->seq);
    fprintf(out, "%s ", e->hang->nstuck == 1 ? "rank" : "ranks");
    print_rank_list(e->hang->stuck, e->hang->nstuck, out);
    fprintf(out, " waited %s for rank %d", finding_duration(e->waited_us, d), f->rank);
    finding_process(f->file, out);
    fputs(", past the hang timeout, then it completed", out);
    print_finding_site(e->site, out);
}

void finding_hang_next(const struct finding *f, FILE *out)
{
    if (f->evidence.hang.mismatched) {
        fprintf(out, "why rank %d's call at seq %" PRIu64 " differs (the call sites: the Hang section): a branch "
                "on the rank, a size computed per rank; every rank's calls: NCCL_DEBUG=INFO "
                "NCCL_DEBUG_SUBSYS=COLL", f->rank, f->seq);
        return;
    }
    if (f->rank < 0) {  /* no rank can be named: where every rank is */
        fputs("where each rank is: py-spy dump --pid PID (or gdb -p PID -batch -ex 'thread apply all bt') on "
              "every rank's process; NCCLTAP_TIMING=all times every op, so that the next hang names the rank", out);
        return;
    }
    fprintf(out, "where rank %d is: py-spy dump --pid ", f->rank);
    finding_pid(f, out);
    fputs(" (or gdb -p ", out);
    finding_pid(f, out);
    fputs(" -batch -ex 'thread apply all bt')", out);
    finding_on_host(f, out);
    fputs("; is it alive, its GPU healthy: dmesg | grep -iE 'xid|oom' there", out);
}

void finding_stall_next(const struct finding *f, FILE *out)
{
    fprintf(out, "what rank %d did meanwhile (a checkpoint, data loading, a slow host): py-spy record --pid ",
            f->rank);
    finding_pid(f, out);
    finding_on_host(f, out);
    fputs(" next time; the OS interference section for its threads", out);
}

/* A stall's evidence is a hang's, resolved: with how long it took. */
void finding_stall_evidence(const struct finding *f, json_t *j)
{
    json_object_set_new(j, "took_s", json_real(f->evidence.hang.hang->took_s));
    finding_hang_evidence(f, j);
}

static json_t *ranks_json(const int *ranks, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_integer(ranks[i]));
    return a;
}

/* What a group of the ranks issued at the stuck op. */
static json_t *call_json(const struct hang_call *c)
{
    json_t *call = json_pack("{s:o, s:s, s:I}", "ranks", ranks_json(c->ranks, c->nranks), "op", c->op, "bytes",
                             (json_int_t)c->bytes);
    json_object_set_new(call, "dtype", c->dtype[0] ? json_string(c->dtype) : json_null());
    json_object_set_new(call, "redop", op_redop_name(c->redop) ? json_string(op_redop_name(c->redop)) : json_null());
    json_object_set_new(call, "root", c->root >= 0 ? json_integer(c->root) : json_null());
    json_object_set_new(call, "completed", json_boolean(c->completed));
    return call;
}

void finding_hang_evidence(const struct finding *f, json_t *j)
{
    const struct hang_evidence *e = &f->evidence.hang;
    const struct hang_instance *h = e->hang;
    json_t *m = json_array();
    for (size_t i = 0; i < h->nmissing; i++)
        json_array_append_new(m, json_integer(h->missing[i].rank));
    json_object_set_new(j, "waiting_ranks", ranks_json(h->stuck, h->nstuck));
    json_t *calls = json_array();  /* two or more: the ranks issued different calls there */
    for (size_t i = 0; i < h->ncalls; i++)
        json_array_append_new(calls, call_json(&h->calls[i]));
    json_object_set_new(j, "calls", calls);
    json_object_set_new(j, "mismatch", json_boolean(e->mismatched));
    json_object_set_new(j, "missing_ranks", m);
    json_object_set_new(j, "untimed", json_boolean(e->untimed));
    json_object_set_new(j, "done_before", h->done_before >= 0 ? json_integer(h->done_before) : json_null());
    json_object_set_new(j, "last_seq", h->nmissing ? json_integer(h->missing[0].last_seq) : json_null());
    json_object_set_new(j, "waited_s", json_real(e->waited_us / 1e6));
    json_object_set_new(j, "site", e->site && e->site->nframes ? site_frame_json(&e->site->frames[0])
                                                                : json_null());
}
