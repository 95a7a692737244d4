/* The nccltap LTTng-UST provider: every event nccltap emits, in LTTng-UST
 * 2.13's v1 macros. Included by the provider (provider.c, which creates the
 * probes in libnccltap-lttng.so) and by the shim (tracing.c defines the
 * tracepoints with dynamic linkage, so the shim runs where liblttng-ust is
 * absent and emitting costs one load and a branch while no session records).
 *
 * Events take pointers to nccltap's own records: LTTng allows at most 10
 * arguments, and the fields are read only when a session records them. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER nccltap

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "nccltap_tp.h"

#if !defined(NCCLTAP_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define NCCLTAP_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

#include "state/callsite_python.h"
#include "state/comm_registry.h"
#include "writers/hang_file.h"
#include "writers/load_map.h"
#include "base/op_record.h"
#include "writers/ops_log.h"
#include "writers/snapshot.h"
#include "stats/stats.h"

LTTNG_UST_TRACEPOINT_ENUM(nccltap, op_enum,
    LTTNG_UST_TP_ENUM_VALUES(
        lttng_ust_field_enum_value("AllReduce", 0)
        lttng_ust_field_enum_value("AllGather", 1)
        lttng_ust_field_enum_value("ReduceScatter", 2)
        lttng_ust_field_enum_value("Broadcast", 3)
        lttng_ust_field_enum_value("Reduce", 4)
        lttng_ust_field_enum_value("AlltoAll", 5)
        lttng_ust_field_enum_value("Gather", 6)
        lttng_ust_field_enum_value("Scatter", 7)
        lttng_ust_field_enum_value("Send", 8)
        lttng_ust_field_enum_value("Recv", 9)
        lttng_ust_field_enum_value("PutSignal", 10)
        lttng_ust_field_enum_value("Signal", 11)
        lttng_ust_field_enum_value("WaitSignal", 12)))

LTTNG_UST_TRACEPOINT_ENUM(nccltap, dtype_enum,
    LTTNG_UST_TP_ENUM_VALUES(
        lttng_ust_field_enum_value("int8", 0)
        lttng_ust_field_enum_value("uint8", 1)
        lttng_ust_field_enum_value("int32", 2)
        lttng_ust_field_enum_value("uint32", 3)
        lttng_ust_field_enum_value("int64", 4)
        lttng_ust_field_enum_value("uint64", 5)
        lttng_ust_field_enum_value("float16", 6)
        lttng_ust_field_enum_value("float32", 7)
        lttng_ust_field_enum_value("float64", 8)
        lttng_ust_field_enum_value("bfloat16", 9)
        lttng_ust_field_enum_value("fp8e4m3", 10)
        lttng_ust_field_enum_value("fp8e5m2", 11)))

LTTNG_UST_TRACEPOINT_ENUM(nccltap, how_enum,
    LTTNG_UST_TP_ENUM_VALUES(
        lttng_ust_field_enum_value("finalize", 1)
        lttng_ust_field_enum_value("destroy", 2)
        lttng_ust_field_enum_value("abort", 3)))

/* A communicator this process joined. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, comm_init,
    LTTNG_UST_TP_ARGS(const struct tap_comm *, c, int, nccl_version),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer_hex(uint64_t, comm_id, c->id)
        lttng_ust_field_string(name, c->name)
        lttng_ust_field_integer(int32_t, rank, c->rank)
        lttng_ust_field_integer(int32_t, nranks, c->nranks)
        lttng_ust_field_integer(int32_t, device, c->device)
        lttng_ust_field_string(gpu_uuid, c->gpu_uuid)
        lttng_ust_field_integer(int32_t, nccl_version, nccl_version)
        lttng_ust_field_integer_hex(uint64_t, parent_id, c->parent_id)
        lttng_ust_field_string(origin, tap_comm_origin_name(c->origin))
        lttng_ust_field_integer(uint64_t, init_ns, c->init_ns)))

/* ncclCommFinalize, ncclCommDestroy or ncclCommAbort returned. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, comm_destroy,
    LTTNG_UST_TP_ARGS(const struct tap_comm *, c, int, how),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer_hex(uint64_t, comm_id, c->id)
        lttng_ust_field_integer(int32_t, rank, c->rank)
        lttng_ust_field_enum(nccltap, how_enum, int32_t, how, how)))

/* An operation NCCL accepted, when the call returned. `marked` 1: it
 * carries its own events (a timed pair or marks), and an op_complete will
 * say when it ran; until then the shim counts it in flight, in no row. 0:
 * counted at once, without a time (untimed, or grouped: its group_end
 * says). */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, op_enqueue,
    LTTNG_UST_TP_ARGS(const struct tap_op_rec *, r),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer_hex(uint64_t, comm_id, r->comm->id)
        lttng_ust_field_integer(int32_t, rank, r->comm->rank)
        lttng_ust_field_integer(uint64_t, seq, r->seq)
        lttng_ust_field_enum(nccltap, op_enum, int32_t, op, r->op)
        lttng_ust_field_enum(nccltap, dtype_enum, int32_t, dtype, r->dtype)
        lttng_ust_field_integer(uint64_t, count, r->count)
        lttng_ust_field_integer(uint64_t, bytes, r->bytes)
        lttng_ust_field_integer(int32_t, peer, r->peer)
        lttng_ust_field_integer_hex(uintptr_t, stream, (uintptr_t)r->stream)
        lttng_ust_field_integer(uint64_t, group_id, r->group_id)
        lttng_ust_field_integer(uint16_t, site, r->site)
        lttng_ust_field_integer(uint64_t, user_tag, tap_op_user_tag(r))
        lttng_ust_field_integer(uint8_t, marked, (r->flags & (TAP_OPF_TIMED | TAP_OPF_STAMPED)) != 0)))

/* A call site, once per process, before or after the first op_enqueue that
 * names it: its return addresses, innermost first, and the Python frames
 * that made its calls (python_frame ids, innermost first; none for a
 * native site), each one's python_frame event emitted before it. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, callsite,
    LTTNG_UST_TP_ARGS(uint16_t, id, const uintptr_t *, frames, unsigned, depth,
                      const uint16_t *, python, unsigned, npython),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, site, id)
        lttng_ust_field_sequence_hex(uint64_t, frames, (const uint64_t *)frames, uint32_t, depth)
        lttng_ust_field_sequence(uint16_t, python, python, uint32_t, npython)))

/* A line of Python that made calls (state/callsite_python.h), once per
 * process and frame, however many sites and ops name it: the strings are
 * written once. `line` 0: the code has no line there. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, python_frame,
    LTTNG_UST_TP_ARGS(uint16_t, id, const struct tap_py_frame *, p),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint16_t, id, id)
        lttng_ust_field_string(file, p->file)
        lttng_ust_field_integer(int32_t, line, p->line)
        lttng_ust_field_string(function, p->function)))

/* Calls made from Python whose Python frame could not be read (the
 * table of lines full), so far: they are at their native sites. Emitted
 * when the count has grown since the last one. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, python_unread,
    LTTNG_UST_TP_ARGS(uint64_t, calls),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, calls, calls)))

/* The program marked a step's start (nccltap_step(), include/nccltap.h):
 * the steps marked so far, this one included, and its time
 * (CLOCK_MONOTONIC, the ops' clock). */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, step,
    LTTNG_UST_TP_ARGS(uint64_t, step, uint64_t, time_ns),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, step, step)
        lttng_ust_field_integer(uint64_t, time_ns, time_ns)))

/* A loaded object that a call site's frames are in, once per process:
 * what symbolizes the frames (file address = address - base). */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, module,
    LTTNG_UST_TP_ARGS(const struct tap_module *, m),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_string(path, m->path)
        lttng_ust_field_integer_hex(uint64_t, base, m->base)
        lttng_ust_field_integer_hex(uint64_t, start, m->start)
        lttng_ust_field_integer_hex(uint64_t, end, m->end)
        lttng_ust_field_string(build_id, m->build_id)))

/* An operation's GPU interval, CLOCK_MONOTONIC like every LTTng event. A
 * grouped operation carries its group's interval and bandwidth. `stamped`
 * 1: the interval is from marks, each end known to within its span (the
 * polls' resolution), start_ns the middle of its span; 2: the same, but
 * its stream was idle when it was called, and start_ns is the call, the
 * low end of its span; 0: a timed pair, exact. `replay`
 * 0: a call (seq its own); N: the Nth execution of the op captured as
 * call `seq` (launches of the executable graph since it was instantiated
 * or updated with it; NCCLTAP_GRAPH_TIMING=all), one event per execution. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, op_complete,
    LTTNG_UST_TP_ARGS(const struct tap_completion *, c),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer_hex(uint64_t, comm_id, c->op->comm->id)
        lttng_ust_field_integer(int32_t, rank, c->op->comm->rank)
        lttng_ust_field_integer(uint64_t, seq, c->op->seq)
        lttng_ust_field_integer(uint64_t, start_ns, c->start_ns)
        lttng_ust_field_integer(uint64_t, end_ns, c->end_ns)
        lttng_ust_field_integer(uint64_t, duration_ns, c->duration_ns)
        lttng_ust_field_float(double, algbw_gbs, c->algbw_gbs)
        lttng_ust_field_float(double, busbw_gbs, c->busbw_gbs)
        lttng_ust_field_integer(uint32_t, group_ops, c->group_ops)
        lttng_ust_field_integer(uint64_t, replay, tap_op_replay(c->op))
        lttng_ust_field_integer(uint8_t, stamped, c->stamped ? 1 + c->start_at_call : 0)
        lttng_ust_field_integer(uint64_t, start_span_ns, c->start_span_ns)
        lttng_ust_field_integer(uint64_t, end_span_ns, c->end_span_ns)))

/* NCCLTAP_OS=switch: a followed thread (one that calls NCCL, or one of
 * NCCL's, named `comm`) was off its CPU from out_ns to in_ns (CLOCK_MONOTONIC),
 * having left `cpu`; preempted 1: it was still runnable. Emitted by the
 * reducer when it reads the switch back in, so after both times. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, os_offcpu,
    LTTNG_UST_TP_ARGS(const struct tap_os_off *, o, const char *, comm),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint32_t, tid, o->tid)
        lttng_ust_field_string(comm, comm)
        lttng_ust_field_integer(uint16_t, cpu, o->cpu)
        lttng_ust_field_integer(uint64_t, out_ns, o->out_ns)
        lttng_ust_field_integer(uint64_t, in_ns, o->in_ns)
        lttng_ust_field_integer(uint8_t, preempted, o->preempted)))

/* The hang watchdog fired (NCCLTAP_HANG_TIMEOUT_S): the stuck op, the
 * oldest timed op not complete, whether its GPU start event completed
 * (the rank arrived) and its call site (a `callsite` event's, 0: none);
 * where no timed op is pending, the last op issued in a process quiet for
 * the timeout, `untimed` 1 and `started` 0 (not known), as the hang file
 * says it; then one for each other communicator with an op pending (the
 * hang file's list). Again every timeout while the hang lasts. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, hang,
    LTTNG_UST_TP_ARGS(const struct tap_hang_comm *, h),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer_hex(uint64_t, comm_id, h->comm->id)
        lttng_ust_field_integer(int32_t, rank, h->comm->rank)
        lttng_ust_field_integer(int32_t, nranks, h->comm->nranks)
        lttng_ust_field_integer(uint64_t, seq, h->seq)
        lttng_ust_field_enum(nccltap, op_enum, int32_t, op, h->op)
        lttng_ust_field_integer(uint64_t, bytes, h->bytes)
        lttng_ust_field_integer(uint8_t, started, h->started)
        lttng_ust_field_integer(uint64_t, issued, h->issued)
        lttng_ust_field_integer(uint64_t, done_seq, h->done_seq)
        lttng_ust_field_integer(uint64_t, pending_ns, h->age_ns)
        lttng_ust_field_integer(uint16_t, site, h->site)
        lttng_ust_field_integer(uint8_t, untimed, !h->timed)))

/* An entry-point event's call returned (state/entry_events.h: memory,
 * registration, windows, device communicators, suspend/resume, revoke,
 * PreMulSum): its name, a key of the rank file's entry_points
 * ("ncclCommRegister"; a pncclX call is named ncclX), and the
 * ncclResult_t NCCL returned. One event per call the rank file counts. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, entry_point,
    LTTNG_UST_TP_ARGS(const char *, name, int32_t, result),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_string(name, name)
        lttng_ust_field_integer(int32_t, result, result)))

/* The outermost ncclGroupEnd (or ncclGroupSimulateEnd) of a group.
 * `marked` 1: its streams carry events (a timed pair, or marks), and an
 * op_complete of each of its ops will say when the group ran. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, group_end,
    LTTNG_UST_TP_ARGS(const struct tap_group_end_rec *, g),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, group_id, g->group_id)
        lttng_ust_field_integer(uint32_t, ops, g->nops)
        lttng_ust_field_integer(uint32_t, streams, g->nstreams)
        lttng_ust_field_integer(uint8_t, timed, (g->flags & TAP_GRPF_TIMED) != 0)
        lttng_ust_field_integer(uint8_t, simulated, (g->flags & TAP_GRPF_SIMULATED) != 0)
        lttng_ust_field_integer(uint8_t, failed, (g->flags & TAP_GRPF_FAILED) != 0)
        lttng_ust_field_integer(uint8_t, marked, (g->flags & (TAP_GRPF_TIMED | TAP_GRPF_STAMPED)) != 0)))

/* An operation issued while its stream was captured into a CUDA graph. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, op_captured,
    LTTNG_UST_TP_ARGS(const struct tap_op_rec *, r),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer_hex(uint64_t, comm_id, r->comm->id)
        lttng_ust_field_integer(int32_t, rank, r->comm->rank)
        lttng_ust_field_integer(uint64_t, seq, r->seq)
        lttng_ust_field_enum(nccltap, op_enum, int32_t, op, r->op)
        lttng_ust_field_integer(uint64_t, bytes, r->bytes)
        lttng_ust_field_integer_hex(uintptr_t, stream, (uintptr_t)r->stream)))

/* The process's exit, once its last calls were collected (within
 * NCCLTAP_EXIT_WAIT_MS): its calls, and those still in no row (in_flight,
 * as the rank file counts them). A process without it in a trace whose
 * recording went on was killed: its calls that no completion followed
 * never ran, as far as anyone knows. */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, process_end,
    LTTNG_UST_TP_ARGS(uint64_t, calls, uint64_t, in_flight),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(uint64_t, calls, calls)
        lttng_ust_field_integer(uint64_t, in_flight, in_flight)))

/* Every interval, one per (communicator, op, datatype, size class). */
LTTNG_UST_TRACEPOINT_EVENT(nccltap, stats,
    LTTNG_UST_TP_ARGS(const struct tap_stat *, s, double, p50_ns, double, p99_ns),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer_hex(uint64_t, comm_id, s->comm->id)
        lttng_ust_field_integer(int32_t, rank, s->comm->rank)
        lttng_ust_field_enum(nccltap, op_enum, int32_t, op, s->op)
        lttng_ust_field_enum(nccltap, dtype_enum, int32_t, dtype, s->dtype)
        lttng_ust_field_integer(uint32_t, size_class, s->size_class)
        lttng_ust_field_integer(uint64_t, calls, s->calls)
        lttng_ust_field_integer(uint64_t, bytes, s->bytes_total)
        lttng_ust_field_integer(uint64_t, time_ns, s->time_sum_ns)
        lttng_ust_field_integer(uint64_t, timed, s->timed)
        lttng_ust_field_integer(uint64_t, p50_ns, (uint64_t)p50_ns)
        lttng_ust_field_integer(uint64_t, p99_ns, (uint64_t)p99_ns)
        lttng_ust_field_float(double, busbw_gbs, s->time_sum_ns ? s->bw_busbytes / (double)s->time_sum_ns : 0)))

#endif /* NCCLTAP_TP_H */

#include <lttng/tracepoint-event.h>
