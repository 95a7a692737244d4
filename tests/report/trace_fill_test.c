/* A trace's processes go into the model through the fill the per-rank
 * files go through (load/rank_fill.h): the same defaults, and the same
 * entries left out and counted, whatever the process was read from. Each
 * case feeds decoded events (load/trace_events.h) to the trace's
 * assembly, as the reader does, and checks the struct rank_file made. */
#include "load.h"
#include "trace_assemble.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: %s: FAIL %s\n", __FILE__, __LINE__, __func__, #cond); \
            failures++;                                                    \
        }                                                                  \
    } while (0)

static struct tev event(enum tev_kind kind, const char *host)
{
    return (struct tev){ .kind = kind, .host = host, .vpid = 42, .vtid = 43, .ts_ns = 1000, .comm_id = 0xc0,
                         .name = "", .gpu_uuid = "", .origin = "init", .how = "", .op = "AllReduce",
                         .dtype = "float32", .path = "", .build_id = "", .py_file = "", .py_function = "",
                         .prev_comm = "", .next_comm = "", .comm = "", .irq_name = "" };
}

static void comm_init(struct trace_assembly *a, const char *host, int64_t rank, int64_t nranks)
{
    struct tev e = event(TEV_COMM_INIT, host);
    e.rank = rank;
    e.nranks = nranks;
    e.nccl_version = 22803;
    e.init_ns = 2500000;
    trace_assembly_add(&e, a);
}

/* Call `seq` of `bytes` on rank 0, timed for `ns` at `algbw` GB/s. */
static void timed_call(struct trace_assembly *a, uint64_t seq, uint64_t bytes, uint64_t ns, double algbw)
{
    struct tev e = event(TEV_OP_ENQUEUE, "h");
    e.seq = seq;
    e.bytes = bytes;
    e.count = bytes / 4;
    e.peer = -1;
    trace_assembly_add(&e, a);
    e = event(TEV_OP_COMPLETE, "h");
    e.seq = seq;
    e.start_ns = 10000 + seq * 100000;
    e.end_ns = e.start_ns + ns;
    e.duration_ns = ns;
    e.group_ops = 1;
    e.algbw_gbs = e.busbw_gbs = algbw;
    trace_assembly_add(&e, a);
}

/* The report of a's events, with one process expected. */
static const struct rank_file *finish(struct trace_assembly *a, struct report *r)
{
    trace_assembly_finish(a, "trace");
    CHECK(r->nfiles == 1);
    return r->nfiles == 1 ? &r->files[0] : NULL;
}

static void begin(struct trace_assembly *a, struct report *r)
{
    memset(r, 0, sizeof *r);
    r->from_trace = true;
    trace_assembly_init(a, r);
}

/* What a rank file's reader would have made of the process's file. */
static void test_process(void)
{
    struct report r;
    struct trace_assembly a;
    begin(&a, &r);
    comm_init(&a, "h", 0, 2);
    for (uint64_t seq = 0; seq < 3; seq++)
        timed_call(&a, seq, 4096, 2000 + seq * 1000, 2.0);
    const struct rank_file *f = finish(&a, &r);
    if (f) {
        CHECK(strcmp(f->host, "h") == 0 && f->pid == 42 && f->final);
        CHECK(strcmp(f->nccl_version, "2.28.3") == 0 && strcmp(f->timing, "") == 0);
        CHECK(isnan(f->clock_calibration_error_ns) && f->nccl_busy_s > 0);
        CHECK(f->nranks == 1 && f->ranks[0] == 0);
        CHECK(f->ncomms == 1 && strcmp(f->comms[0].id, "00000000000000c0") == 0);
        CHECK(f->comms[0].calls == 3 && fabs(f->comms[0].init_ms - 2.5) < 1e-12);
        CHECK(f->comms[0].config.version == 0 && f->comms[0].config.blocking == COMM_CONFIG_UNSET);
        CHECK(f->totals.calls == 3 && f->totals.timed == 3);
        CHECK(f->nops == 1);
        const struct op_row *row = &f->ops[0];
        CHECK(row->file == f && row->rank == 0 && strcmp(row->op, "AllReduce") == 0);
        CHECK(row->size_class == 4096 && row->bytes == 4096.0 && row->calls == 3 && row->timed == 3);
        /* The first timed call kept apart, as the shim keeps it. */
        CHECK(fabs(row->first_us - 2.0) < 1e-9 && row->t_count == 2 && row->t_sum == 3000 + 4000);
        CHECK(row->t_min == 3000 && row->t_max == 4000 && fabs(row->us_mean - 3.5) < 1e-9);
        CHECK(row->nhist == 2 && row->hist[0].count == 1 && row->hist[0].bucket < row->hist[1].bucket);
    }
    CHECK(r.records_rejected == 0 && r.nskipped == 0);
    report_free(&r);
}

/* A communicator outside its size is left out and counted, as in a file. */
static void test_comm_out_of_range(void)
{
    struct report r;
    struct trace_assembly a;
    begin(&a, &r);
    comm_init(&a, "h", 0, 2);
    struct tev e = event(TEV_COMM_INIT, "h");
    e.comm_id = 0xc1;
    e.origin = "split";
    e.rank = 5;
    e.nranks = 2;
    trace_assembly_add(&e, &a);
    const struct rank_file *f = finish(&a, &r);
    CHECK(f && f->ncomms == 1 && strcmp(f->comms[0].id, "00000000000000c0") == 0);
    CHECK(r.records_rejected == 1);
    report_free(&r);
}

/* A row a rank file could not spell is left out and counted: a bandwidth
 * that is not a number, a size past 2^63. */
static void test_rows_a_file_cannot_hold(void)
{
    struct report r;
    struct trace_assembly a;
    begin(&a, &r);
    comm_init(&a, "h", 0, 2);
    timed_call(&a, 0, 1024, 2000, NAN);
    timed_call(&a, 1, 1024, 2000, NAN);
    timed_call(&a, 2, 1ull << 63, 2000, 1.0);
    timed_call(&a, 3, 64, 2000, 1.0);
    const struct rank_file *f = finish(&a, &r);
    CHECK(f && f->nops == 1 && f->ops[0].size_class == 64);
    /* The two rows, and the op event of the size past 256 TiB (record_check.h). */
    CHECK(r.records_rejected == 3);
    report_free(&r);
}

/* Call `seq` on rank 0, never timed (no op_complete). */
static void untimed_call(struct trace_assembly *a, uint64_t seq)
{
    struct tev e = event(TEV_OP_ENQUEUE, "h");
    e.seq = seq;
    e.bytes = 4096;
    e.count = 1024;
    e.peer = -1;
    trace_assembly_add(&e, a);
}

/* The watchdog's event: rank 0 stuck at `seq`, complete up to done_seq. */
static void hang_event(struct trace_assembly *a, uint64_t seq, uint64_t done_seq, bool untimed)
{
    struct tev e = event(TEV_HANG, "h");
    e.rank = 0;
    e.nranks = 2;
    e.seq = seq;
    e.bytes = 4096;
    e.issued = 10;
    e.done_seq = done_seq;
    e.pending_ns = 2000000000;
    e.untimed = untimed;
    trace_assembly_add(&e, a);
}

/* Ten calls, 0-3 timed; what the rows hold after a hang event, as the
 * rank file has it: calls the shim never learnt ran are in flight. */
static const struct rank_file *hung(struct trace_assembly *a, struct report *r, uint64_t seq, bool untimed,
                                    bool later_timed)
{
    begin(a, r);
    comm_init(a, "h", 0, 2);
    for (uint64_t i = 0; i < 10; i++) {
        if (i < 4 || (later_timed && i == 8))
            timed_call(a, i, 4096, 2000, 2.0);
        else
            untimed_call(a, i);
    }
    hang_event(a, seq, 4, untimed);
    return finish(a, r);
}

static void test_hang_holds_calls(void)
{
    struct report r;
    struct trace_assembly a;
    /* A timed op stuck at 6 (auto: 4 and 5 untimed before it): 4-9 were
     * never known complete, 4 in rows (the 80-behind-a-hang case). */
    const struct rank_file *f = hung(&a, &r, 6, false, false);
    CHECK(f && f->totals.calls == 10 && f->totals.in_flight == 6 && f->nops == 1 && f->ops[0].calls == 4);
    report_free(&r);
    /* The same stuck op with op 8 completed later: the hang ended, no
     * call held. */
    f = hung(&a, &r, 6, false, true);
    CHECK(f && f->totals.in_flight == 0 && f->nops == 1 && f->ops[0].calls == 10);
    report_free(&r);
    /* An untimed last op stuck (auto, quiet for the timeout) and later
     * calls that completed: a pause past the timeout, nothing held. */
    f = hung(&a, &r, 5, true, true);
    CHECK(f && f->totals.in_flight == 0 && f->nops == 1 && f->ops[0].calls == 10);
    report_free(&r);
    /* ... and with nothing completed since: 4-9 held. */
    f = hung(&a, &r, 9, true, false);
    CHECK(f && f->totals.in_flight == 6 && f->nops == 1 && f->ops[0].calls == 4);
    report_free(&r);
    /* NCCLTAP_TIMING=off: no completion at all, every call in its row. */
    begin(&a, &r);
    comm_init(&a, "h", 0, 2);
    for (uint64_t i = 0; i < 10; i++)
        untimed_call(&a, i);
    hang_event(&a, 9, 0, true);
    f = finish(&a, &r);
    CHECK(f && f->totals.in_flight == 0 && f->nops == 1 && f->ops[0].calls == 10);
    report_free(&r);
}

/* Names are kept as the trace has them, UTF-8 or not, as the kernel's are:
 * the renderers escape what they print. */
static void test_names_as_recorded(void)
{
    struct report r;
    struct trace_assembly a;
    begin(&a, &r);
    comm_init(&a, "h\xff", 0, 2);
    const struct rank_file *f = finish(&a, &r);
    CHECK(f && strcmp(f->host, "h\xff") == 0);
    report_free(&r);
}

int main(void)
{
    test_process();
    test_comm_out_of_range();
    test_rows_a_file_cannot_hold();
    test_names_as_recorded();
    test_hang_holds_calls();
    if (failures)
        return 1;
    puts("trace_fill: all passed");
    return 0;
}
