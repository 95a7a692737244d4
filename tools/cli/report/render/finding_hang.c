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

/* Whether a hang formed on a mismatch: every rank there, different calls. */
static bool hang_mismatched(const struct finding *f)
{
    return f->hang && f->hang->ncalls >= 2 && !f->nmissing;
}

/* "rank 1 (host h, pid p) waits in AllGather 4.0M, where 3 ranks (0, 2-3)
 * wait in AllReduce 1.0M": the calls that differ, then the most common. */
static void print_hang_calls(const struct finding *f, FILE *out)
{
    const struct hang_instance *h = f->hang;
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
        fprintf(out, " wait%s in %s %s", c->nranks == 1 ? "s" : "", shown(c->op, op),
                human_bytes((double)c->bytes, size));
        print_call_detail(c, out);
    }
}

static void print_hang_finding(const struct finding *f, FILE *out)
{
    char op[SHOWN_MAX], d[32];
    fprintf(out, "comm %016" PRIx64 " %s seq %" PRIu64 ": ", f->comm, shown(f->op, op), f->seq);
    if (hang_mismatched(f)) {
        fputs("a mismatch, not a missing rank: ", out);
        print_hang_calls(f, out);
        fprintf(out, ", for %s", finding_duration(f->wait_us, d));
    } else if (f->nmissing) {
        const struct hang_missing *m = &f->missing[0];
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
        if (f->nmissing > 1)
            fprintf(out, ", and %zu more rank%s", f->nmissing - 1, f->nmissing == 2 ? "" : "s");
        fprintf(out, ", %s ", f->nwaiting == 1 ? "rank" : "ranks");
        if (f->nwaiting)
            print_rank_list(f->waiting, f->nwaiting, out);
        else
            fputs("none", out);
        fprintf(out, " waiting %s", finding_duration(f->wait_us, d));
    } else {
        fputs("ranks ", out);
        print_rank_list(f->waiting, f->nwaiting, out);
        fprintf(out, " all waiting %s %s: which rank's GPU did not reach it cannot be told", f->done_before >= 0 ?
                "in it or before it" : "in it", finding_duration(f->wait_us, d));
        if (f->done_before >= 0)
            fprintf(out, " (GPUs known to have completed up to seq %" PRId64 "; auto timed none of the ops since: "
                    "NCCLTAP_TIMING=all times every op)", f->done_before);
        else if (f->untimed)
            fputs(" (auto timed it on no rank; NCCLTAP_TIMING=all times every op)", out);
    }
    print_finding_site(f->site, out);
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
    char op[SHOWN_MAX], d[32];
    fprintf(out, "comm %016" PRIx64 " %s seq %" PRIu64 ": ", f->comm, shown(f->op, op), f->seq);
    fprintf(out, "%s ", f->nwaiting == 1 ? "rank" : "ranks");
    print_rank_list(f->waiting, f->nwaiting, out);
    fprintf(out, " waited %s for rank %d", finding_duration(f->wait_us, d), f->rank);
    finding_process(f->file, out);
    fputs(", past the hang timeout, then it completed", out);
    print_finding_site(f->site, out);
}

void finding_hang_next(const struct finding *f, FILE *out)
{
    if (hang_mismatched(f)) {
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
void finding_stall_evidence(const struct finding *f, json_t *e)
{
    json_object_set_new(e, "took_s", json_real(f->took_s));
    finding_hang_evidence(f, e);
}

void finding_hang_evidence(const struct finding *f, json_t *e)
{
    json_t *w = json_array(), *m = json_array();
    for (size_t i = 0; i < f->nwaiting; i++)
        json_array_append_new(w, json_integer(f->waiting[i]));
    for (size_t i = 0; i < f->nmissing; i++)
        json_array_append_new(m, json_integer(f->missing[i].rank));
    json_object_set_new(e, "waiting_ranks", w);
    json_t *calls = json_array();  /* two or more: the ranks issued different calls there */
    for (size_t i = 0; f->hang && i < f->hang->ncalls; i++) {
        const struct hang_call *c = &f->hang->calls[i];
        json_t *ranks = json_array();
        for (size_t k = 0; k < c->nranks; k++)
            json_array_append_new(ranks, json_integer(c->ranks[k]));
        json_t *call = json_pack("{s:o, s:s, s:I}", "ranks", ranks, "op", c->op, "bytes", (json_int_t)c->bytes);
        json_object_set_new(call, "dtype", c->dtype[0] ? json_string(c->dtype) : json_null());
        json_object_set_new(call, "redop", op_redop_name(c->redop) ? json_string(op_redop_name(c->redop))
                                                                    : json_null());
        json_object_set_new(call, "root", c->root >= 0 ? json_integer(c->root) : json_null());
        json_array_append_new(calls, call);
    }
    json_object_set_new(e, "calls", calls);
    json_object_set_new(e, "mismatch", json_boolean(hang_mismatched(f)));
    json_object_set_new(e, "missing_ranks", m);
    json_object_set_new(e, "untimed", json_boolean(f->untimed));
    json_object_set_new(e, "done_before", f->done_before >= 0 ? json_integer(f->done_before) : json_null());
    json_object_set_new(e, "last_seq", f->nmissing ? json_integer(f->missing[0].last_seq) : json_null());
    json_object_set_new(e, "waited_s", json_real(f->wait_us / 1e6));
    json_object_set_new(e, "site", f->site && f->site->nframes ? site_frame_json(&f->site->frames[0])
                                                                : json_null());
}
