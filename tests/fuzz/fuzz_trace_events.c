/* libFuzzer target: what the report makes of an LTTng trace's events once
 * they are decoded (load/trace_assemble.c: the per-process model, the
 * kernel's events, one document per process, its op events and hang
 * report). libbabeltrace2 decodes the CTF itself; from there on the events
 * are nccltap's to trust or not, and a trace may be anyone's. The bytes
 * become a sequence of events of every kind, with fields taken raw (ranks,
 * sizes, seqs, CPUs out of any range) or from a few values (so that events
 * meet: the same communicator, process, op). Whatever the bytes, no crash,
 * no leak, and what is kept is within the bounds the files are held to. */
#include "input_limits.h"
#include "load.h"
#include "record_check.h"
#include "trace_assemble.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct bytes {
    const uint8_t *p;
    size_t n;
};

static uint64_t take(struct bytes *b, size_t len)
{
    uint64_t v = 0;
    for (size_t i = 0; i < len && b->n; i++, b->p++, b->n--)
        v |= (uint64_t)*b->p << (8 * i);
    return v;
}

/* One byte choosing among a few values, or (its top bit set) 8 raw bytes. */
static int64_t pick(struct bytes *b, const int64_t *few, size_t nfew)
{
    uint64_t c = take(b, 1);
    return c & 0x80 ? (int64_t)take(b, 8) : few[c % nfew];
}

static const char *name(struct bytes *b)
{
    static const char *const names[] = {"", "AllReduce", "AllGather", "Send", "Recv", "float32",
                                        "int8", "h0", "h1", "init", "split", "destroy", "\xff\xfe",
                                        "op_complete", "process_end"};
    return names[take(b, 1) % (sizeof names / sizeof names[0])];
}

static void event_of(struct bytes *b, struct tev *e, uint64_t *frames, uint64_t *python)
{
    static const int64_t small[] = {-1, 0, 1, 2, 3, 4, 7, 8, 1 << 20, INT32_MAX};
    static const int64_t ids[] = {0, 1, 2, 0x5ca1ab1e};
    memset(e, 0, sizeof *e);
    e->kind = (enum tev_kind)(take(b, 1) % (TEV_IRQ_EXIT + 1));
    e->host = name(b);
    e->vpid = pick(b, small, 4);
    e->vtid = pick(b, small, 4);
    e->ts_ns = (uint64_t)pick(b, small, 10) * 1000;
    e->comm_id = (uint64_t)pick(b, ids, 4);
    e->parent_id = (uint64_t)pick(b, ids, 4);
    e->rank = pick(b, small, 10);
    e->nranks = pick(b, small, 10);
    e->peer = pick(b, small, 10);
    e->seq = (uint64_t)pick(b, small, 10);
    e->device = pick(b, small, 4);
    e->nccl_version = pick(b, small, 4);
    e->name = name(b);
    e->gpu_uuid = name(b);
    e->origin = name(b);
    e->how = name(b);
    e->op = name(b);
    e->dtype = name(b);
    e->op_value = pick(b, small, 10);
    e->dtype_value = pick(b, small, 10);
    e->count = (uint64_t)pick(b, small, 10);
    e->bytes = (uint64_t)pick(b, small, 10);
    e->group_id = (uint64_t)pick(b, ids, 4);
    e->stream = (uint64_t)pick(b, ids, 4);
    e->start_ns = (uint64_t)pick(b, small, 10) * 1000;
    e->end_ns = (uint64_t)pick(b, small, 10) * 1000;
    e->duration_ns = (uint64_t)pick(b, small, 10);
    e->group_ops = (uint64_t)pick(b, small, 10);
    e->issued = (uint64_t)pick(b, small, 10);
    e->done_seq = (uint64_t)pick(b, small, 10);
    e->pending_ns = (uint64_t)pick(b, small, 10);
    e->site = (uint64_t)pick(b, small, 10);
    e->user_tag = (uint64_t)pick(b, ids, 4);
    e->started = take(b, 1) & 1;
    e->untimed = take(b, 1) & 1;
    e->nframes = take(b, 1) % 9;
    for (size_t i = 0; i < e->nframes; i++)
        frames[i] = take(b, 8);
    e->frames = frames;
    e->npython = take(b, 1) % 9;
    for (size_t i = 0; i < e->npython; i++)
        python[i] = (uint64_t)pick(b, small, 10);
    e->python = python;
    e->py_id = (uint64_t)pick(b, small, 10);
    e->py_file = name(b);
    e->py_function = name(b);
    e->py_line = pick(b, small, 10);
    e->calls = (uint64_t)pick(b, small, 10);
    e->path = name(b);
    e->build_id = name(b);
    e->base = take(b, 8);
    e->start = take(b, 8);
    e->end = take(b, 8);
    e->ops = (uint64_t)pick(b, small, 10);
    e->timed = take(b, 1) & 1;
    e->cpu = (uint32_t)pick(b, small, 10);
    e->prev_comm = name(b);
    e->next_comm = name(b);
    e->comm = name(b);
    e->irq_name = name(b);
    e->prev_tid = e->tid = pick(b, small, 10);
    e->next_tid = e->pid = pick(b, small, 10);
    e->prev_state = pick(b, small, 10);
    e->target_cpu = pick(b, small, 10);
    e->irq = pick(b, small, 10);
    e->replay = take(b, 1) & 1; /* last: the seeds decode as before it */
}

/* A process's rows and communicators as the fill leaves them
 * (rank_fill.h): what a rank file could hold. */
static void check_filled(const struct rank_file *f)
{
    for (size_t j = 0; j < f->ncomms; j++)
        if (comm_entry_invalid(&f->comms[j]) || f->comms[j].calls > (uint64_t)INT64_MAX)
            abort();
    for (size_t j = 0; j < f->nops; j++) {
        const struct op_row *row = &f->ops[j];
        if (row->file != f || row->rank < -1 || row->rank >= REPORT_MAX_NRANKS || row->calls > (uint64_t)INT64_MAX ||
            row->t_count > row->timed || isnan(row->bw_bytes) || isnan(row->bytes))
            abort();
        for (size_t k = 0; k < row->nhist; k++)
            if (row->hist[k].bucket < 0 || row->hist[k].bucket >= REPORT_HIST_BUCKETS)
                abort();
    }
}

static void check(const struct report *r)
{
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct rank_file *f = &r->files[i];
        check_filled(f);
        for (size_t j = 0; j < f->nevents; j++) {
            const struct op_event *e = &f->events[j];
            if (e->rank < 0 || e->rank >= REPORT_MAX_NRANKS || e->peer < -1 || e->peer >= REPORT_MAX_NRANKS ||
                e->seq >= REPORT_MAX_COUNT || op_replay(e) >= REPORT_MAX_COUNT || e->bytes > REPORT_MAX_OP_BYTES ||
                e->end_ns < e->start_ns)
                abort();
        }
    }
    for (size_t i = 0; i < r->nhangs; i++)
        for (size_t j = 0; j < r->hangs[i].ncomms; j++) {
            const struct hang_comm *c = &r->hangs[i].comms[j];
            if (c->nranks < 1 || c->nranks > REPORT_MAX_NRANKS || c->rank < 0 || c->rank >= c->nranks)
                abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct report r;
    memset(&r, 0, sizeof r);
    r.dir = "fuzz";
    r.from_trace = true;
    struct trace_assembly a;
    trace_assembly_init(&a, &r);
    struct bytes b = {data, size};
    uint64_t frames[8], python[8];
    for (int n = 0; b.n && n < 4096; n++) {
        struct tev e;
        event_of(&b, &e, frames, python);
        trace_assembly_add(&e, &a);
    }
    trace_assembly_finish(&a, "fuzz");
    check(&r);
    report_free(&r);
    return 0;
}
