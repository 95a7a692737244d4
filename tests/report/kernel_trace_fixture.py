#!/usr/bin/env python3
"""Writes an LTTng-like session trace of a 4-rank run with kernel events,
for `nccltap report`'s OS-interference analysis, where lttng-modules
cannot run (containers, CI).

usage: kernel_trace_fixture.py CASE OUTDIR
  CASE    straggler  rank 2's calling thread is preempted 400 us by another
                     task ("stress-ng-cpu") just before AllReduce seq 2, so
                     it starts the collective last and the other ranks wait
                     for it
          irq_storm  50 interrupts of 10 us ("mlx5_comp5") on the CPU of rank
                     1's NCCL proxy thread during AllReduce seq 3
          in_op      rank 3's NCCL proxy thread preempted 300 us by another
                     task ("kworker/7:1") during AllReduce seq 4, which takes
                     that much longer on every rank; nobody arrives late
          clean      the same run with no interference during any op
          both       straggler, and rank 2's process also recorded its calling
                     thread's time off the CPU itself (NCCLTAP_OS): the same
                     preemption as a nccltap:os_offcpu event
  OUTDIR  the session directory (emptied first): OUTDIR/kernel/ and
          OUTDIR/ust/uid/0/64-bit/, each a CTF trace with its own metadata,
          as `lttng` lays a session out

The UST trace is written with libbabeltrace2's Python bindings (Debian's
python3-bt2): a source component of this script's own feeds sink.ctf.fs.
The kernel trace is written byte by byte as lttng-modules writes it (CTF
1.8: TSDL metadata, packets with lttng's packet header and context, its
large event header), since babeltrace2's trace IR has no text arrays.
They follow what LTTng writes:
- both traces share LTTng's clock class: "monotonic", 1 GHz, the machine's
  boot id as UUID (here a fixed one), an offset to the epoch; values are
  CLOCK_MONOTONIC ns, so the two domains merge on one timeline;
- the kernel trace's environment says domain "kernel", tracer
  "lttng-modules" 2.13; each packet's context carries cpu_id, one stream
  per CPU, as lttng-modules' per-CPU ring buffers;
- kernel events with lttng-modules' names and fields
  (include/instrumentation/events/sched.h, irq.h, lttng-statedump.h):
  sched_switch {prev_comm, prev_tid, prev_prio, prev_state, next_comm,
  next_tid, next_prio}, prev_state a C long, TASK_REPORT_MAX (0x100) for a
  preempted task on kernels >= 4.14, a sleeping state bit otherwise;
  sched_wakeup {comm, tid, prio, target_cpu}; sched_process_fork
  {parent_comm, parent_tid, parent_pid, parent_ns_inum, child_comm,
  child_tid, vtids, child_pid, child_ns_inum};
  irq_handler_entry {irq, name}; irq_handler_exit {irq, ret}.
  Field types as lttng-modules declares them (ctf_array_text(char, ...,
  TASK_COMM_LEN): comm fields are 16-byte UTF-8 text arrays, NUL-padded;
  pid_t and int 32-bit, long 64-bit; vtids a sequence with an 8-bit length;
  the irq handler's name a string), each field named with lttng's leading
  underscore, as the real traces of tracecompass-test-traces (many-threads,
  lttng-modules 2.8) hold them; babeltrace2 reads a text array as a string;
- the UST trace holds nccltap's events (tracepoints/nccltap_tp.h: same
  names, field names, integer widths and enumerations) with the vpid, vtid
  and procname contexts `nccltap run --lttng` adds.
"""
import os
import shutil
import struct as bin
import sys
import uuid

import bt2

HOST = "node0"
BOOT_ID = uuid.UUID("6e1f0c2a-3b5d-4c8e-9a71-0d2f4b6c8e10")
EPOCH_OFFSET_S = 1_795_400_000   # the clock's offset: realtime - monotonic
T0 = 50_000_000_000              # the run's first event, CLOCK_MONOTONIC ns
COMM_ID = 0x5EED0000C0FFEE01
NRANKS = 4
OPS = 6                          # AllReduce seq 0..5
OP_PERIOD = 10_000_000           # one op every 10 ms
OP_BYTES = 1 << 20
OP_US = 200                      # a op's GPU time once every rank is there

PID = [4101, 4102, 4103, 4104]   # one process per rank; main thread tid = pid
PROXY_TID = [4201, 4202, 4203, 4204]
PROXY_COMM = "NCCL Progress 0"   # NCCL names its proxy thread so (15 chars)
MAIN_CPU = [0, 2, 4, 6]
PROXY_CPU = [1, 3, 5, 7]
NCPUS = 8

TASK_INTERRUPTIBLE = 0x1         # lttng-modules' prev_state of a sleeping task
TASK_REPORT_MAX = 0x100          # ... of a preempted one (kernels >= 4.14)

STRAGGLER = dict(rank=2, seq=2, preempt_ns=400_000, by="stress-ng-cpu", by_tid=9001)
STORM = dict(rank=1, seq=3, count=50, each_ns=10_000, irq=77, name="mlx5_comp5")
IN_OP = dict(rank=3, seq=4, preempt_ns=300_000, by="kworker/7:1", by_tid=9002)

OP_ENUM = ["AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AlltoAll",
           "Gather", "Scatter", "Send", "Recv"]
DTYPE_ENUM = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32",
              "float64", "bfloat16", "fp8e4m3", "fp8e5m2"]


# ---- the run, as plain events ------------------------------------------------

class Run:
    """What happened, in CLOCK_MONOTONIC ns: nccltap's events per process and
    kernel events per CPU."""

    def __init__(self, case):
        self.ust = []                              # (ts, pid, tid, name, fields)
        self.kernel = {c: [] for c in range(NCPUS)}  # cpu -> [(ts, name, fields)]
        self.case = case
        self.build()

    def k(self, cpu, ts, event, **fields):
        self.kernel[cpu].append((ts, event, fields))

    def switch(self, cpu, ts, prev, prev_tid, state, nxt, next_tid):
        self.k(cpu, ts, "sched_switch", prev_comm=prev, prev_tid=prev_tid, prev_prio=20,
               prev_state=state, next_comm=nxt, next_tid=next_tid, next_prio=20)

    def build(self):
        # Each rank's NCCL proxy thread, forked at init, then busy on its CPU.
        for r in range(NRANKS):
            fork_ts = T0 - 2_000_000 + r * 1000
            self.k(MAIN_CPU[r], fork_ts, "sched_process_fork",
                   parent_comm="python3", parent_tid=PID[r], parent_pid=PID[r],
                   parent_ns_inum=4026531836, child_comm="python3", child_tid=PROXY_TID[r],
                   vtids=[PROXY_TID[r]], child_pid=PID[r], child_ns_inum=4026531836)
            self.switch(PROXY_CPU[r], fork_ts + 50_000, "swapper/%d" % PROXY_CPU[r], 0, 0,
                        PROXY_COMM, PROXY_TID[r])
            self.ust.append((T0 - 1_000_000, PID[r], PID[r], "comm_init", dict(
                comm_id=COMM_ID, name="", rank=r, nranks=NRANKS, device=r,
                gpu_uuid="GPU-%08d" % r, nccl_version=22803, parent_id=0, origin="init",
                init_ns=150_000_000)))

        for seq in range(OPS):
            base = T0 + seq * OP_PERIOD
            entry = [base + 1_000 * r for r in range(NRANKS)]    # the calls, within 5 us
            ret = [e + 8_000 for e in entry]                     # ... return
            late = self.case in ("straggler", "both") and seq == STRAGGLER["seq"]
            s = STRAGGLER["rank"]
            if late:
                # Preempted just before its call: it calls 400 us late, and
                # every other rank's collective waits for it.
                p0 = entry[s] - 2_000
                p1 = p0 + STRAGGLER["preempt_ns"]
                self.switch(MAIN_CPU[s], p0, "python3", PID[s], TASK_REPORT_MAX,
                            STRAGGLER["by"], STRAGGLER["by_tid"])
                self.k(MAIN_CPU[s], p1 - 1_000, "sched_wakeup", comm="python3", tid=PID[s],
                       prio=20, target_cpu=MAIN_CPU[s])
                self.switch(MAIN_CPU[s], p1, STRAGGLER["by"], STRAGGLER["by_tid"],
                            TASK_REPORT_MAX, "python3", PID[s])
                entry[s] += STRAGGLER["preempt_ns"]
                ret[s] += STRAGGLER["preempt_ns"]
                if self.case == "both":
                    # The shim's reducer reads the switch back in a little later.
                    self.ust.append((p1 + 20_000, PID[s], PID[s] + 60, "os_offcpu", dict(
                        tid=PID[s], comm="python3", cpu=MAIN_CPU[s], out_ns=p0, in_ns=p1,
                        preempted=1)))
            end = max(ret) + OP_US * 1000
            storm = self.case == "irq_storm" and seq == STORM["seq"]
            if storm:
                # The proxy thread loses its CPU to the handlers: the op
                # takes that much longer on every rank.
                end += STORM["count"] * (STORM["each_ns"] + 1_000)
            in_op = self.case == "in_op" and seq == IN_OP["seq"]
            if in_op:
                # The proxy thread loses its CPU 50 us into the op; the
                # collective waits for it on every rank.
                r, cpu = IN_OP["rank"], PROXY_CPU[IN_OP["rank"]]
                p0 = entry[r] + 50_000
                self.switch(cpu, p0, PROXY_COMM, PROXY_TID[r], TASK_REPORT_MAX, IN_OP["by"],
                            IN_OP["by_tid"])
                self.switch(cpu, p0 + IN_OP["preempt_ns"], IN_OP["by"], IN_OP["by_tid"],
                            TASK_INTERRUPTIBLE, PROXY_COMM, PROXY_TID[r])
                end += IN_OP["preempt_ns"]
            for r in range(NRANKS):
                self.ust.append((ret[r], PID[r], PID[r], "op_enqueue", dict(
                    comm_id=COMM_ID, rank=r, seq=seq, op=0, dtype=7, count=OP_BYTES // 4,
                    bytes=OP_BYTES, peer=-1, stream=0x7F0000001000 + r, group_id=0,
                    site=0)))  # 0: no call site, as with NCCLTAP_CALLSITE_DEPTH=0
                # The start event is recorded at the call's entry, on an idle
                # stream: the GPU interval runs from the entry to the end.
                dur = end - entry[r]
                busbw = OP_BYTES * 2 * (NRANKS - 1) / NRANKS / dur
                self.ust.append((end + 30_000, PID[r], PID[r] + 50, "op_complete", dict(
                    comm_id=COMM_ID, rank=r, seq=seq, start_ns=entry[r], end_ns=end,
                    duration_ns=dur, algbw_gbs=OP_BYTES / dur, busbw_gbs=busbw, group_ops=1)))
                # Between ops the calling thread sleeps (not interference).
                cpu = MAIN_CPU[r]
                self.switch(cpu, end + 100_000, "python3", PID[r], TASK_INTERRUPTIBLE,
                            "swapper/%d" % cpu, 0)
                self.k(cpu, base + OP_PERIOD - 100_000, "sched_wakeup", comm="python3",
                       tid=PID[r], prio=20, target_cpu=cpu)
                self.switch(cpu, base + OP_PERIOD - 99_000, "swapper/%d" % cpu, 0, 0,
                            "python3", PID[r])
                # Interrupts elsewhere, or between ops: not on a rank's time.
                self.irq(NCPUS - 1 - r if r % 2 == 0 else 0, end + 200_000, 1, 5_000, 30,
                         "ahci[0000:00:17.0]")
            if storm:
                self.irq(PROXY_CPU[STORM["rank"]], entry[STORM["rank"]] + 20_000, STORM["count"],
                         STORM["each_ns"], STORM["irq"], STORM["name"])
        for evs in self.kernel.values():
            evs.sort(key=lambda e: e[0])
        self.ust.sort(key=lambda e: e[0])

    def irq(self, cpu, t, n, each, irq, name):
        for i in range(n):
            a = t + i * (each + 1_000)
            self.k(cpu, a, "irq_handler_entry", irq=irq, name=name)
            self.k(cpu, a + each, "irq_handler_exit", irq=irq, ret=1)


# ---- writing it with babeltrace2 -------------------------------------------

def clock_class(comp):
    return comp._create_clock_class(
        frequency=1_000_000_000, name="monotonic", description="Monotonic Clock",
        offset=bt2.ClockClassOffset(EPOCH_OFFSET_S, 0), uuid=BOOT_ID)


def struct(tc, members):
    s = tc.create_structure_field_class()
    for name, fc in members:
        s.append_member(name, fc)
    return s


def enum(tc, labels, bits=32):
    e = tc.create_signed_enumeration_field_class(bits)
    for value, label in enumerate(labels):
        e.add_mapping(label, bt2.SignedIntegerRangeSet([(value, value)]))
    return e


def kernel_classes(tc, sc):
    i32 = lambda: tc.create_signed_integer_field_class(32)
    u32 = lambda: tc.create_unsigned_integer_field_class(32)
    i64 = lambda: tc.create_signed_integer_field_class(64)
    text = tc.create_string_field_class
    vtids = tc.create_dynamic_array_field_class(i32())
    fields = {
        "sched_switch": [("prev_comm", text()), ("prev_tid", i32()), ("prev_prio", i32()),
                         ("prev_state", i64()), ("next_comm", text()), ("next_tid", i32()),
                         ("next_prio", i32())],
        "sched_wakeup": [("comm", text()), ("tid", i32()), ("prio", i32()),
                         ("target_cpu", i32())],
        "sched_process_fork": [("parent_comm", text()), ("parent_tid", i32()),
                               ("parent_pid", i32()), ("parent_ns_inum", u32()),
                               ("child_comm", text()), ("child_tid", i32()), ("vtids", vtids),
                               ("child_pid", i32()), ("child_ns_inum", u32())],
        "irq_handler_entry": [("irq", i32()), ("name", text())],
        "irq_handler_exit": [("irq", i32()), ("ret", i32())],
    }
    return {name: sc.create_event_class(name=name, payload_field_class=struct(tc, members))
            for name, members in fields.items()}


def ust_classes(tc, sc):
    i32 = lambda: tc.create_signed_integer_field_class(32)
    u8 = lambda: tc.create_unsigned_integer_field_class(8)
    u16 = lambda: tc.create_unsigned_integer_field_class(16)
    u32 = lambda: tc.create_unsigned_integer_field_class(32)
    u64 = lambda: tc.create_unsigned_integer_field_class(64)
    hex64 = lambda: tc.create_unsigned_integer_field_class(
        64, bt2.IntegerDisplayBase.HEXADECIMAL)
    real = tc.create_double_precision_real_field_class
    text = tc.create_string_field_class
    fields = {
        "nccltap:comm_init": [("comm_id", hex64()), ("name", text()), ("rank", i32()),
                              ("nranks", i32()), ("device", i32()), ("gpu_uuid", text()),
                              ("nccl_version", i32()), ("parent_id", hex64()),
                              ("origin", text()), ("init_ns", u64())],
        "nccltap:op_enqueue": [("comm_id", hex64()), ("rank", i32()), ("seq", u64()),
                               ("op", enum(tc, OP_ENUM)), ("dtype", enum(tc, DTYPE_ENUM)),
                               ("count", u64()), ("bytes", u64()), ("peer", i32()),
                               ("stream", hex64()), ("group_id", u64()), ("site", u16())],
        "nccltap:op_complete": [("comm_id", hex64()), ("rank", i32()), ("seq", u64()),
                                ("start_ns", u64()), ("end_ns", u64()), ("duration_ns", u64()),
                                ("algbw_gbs", real()), ("busbw_gbs", real()),
                                ("group_ops", u32())],
        "nccltap:os_offcpu": [("tid", u32()), ("comm", text()), ("cpu", u16()), ("out_ns", u64()),
                              ("in_ns", u64()), ("preempted", u8())],
    }
    return {name: sc.create_event_class(name=name, payload_field_class=struct(tc, members))
            for name, members in fields.items()}


class Iterator(bt2._UserMessageIterator):
    def __init__(self, config, port):
        self._messages = port.user_data(self)

    def __next__(self):
        return next(self._messages)


class Source(bt2._UserSourceComponent, message_iterator_class=Iterator):
    """One trace: `obj` is (domain, run)."""

    def __init__(self, config, params, obj):
        domain, run = obj
        tc = self._create_trace_class()
        cc = clock_class(self)
        common = {"hostname": HOST, "tracer_major": 2, "tracer_minor": 13,
                  "trace_name": "nccltap-fixture", "architecture_bit_width": 64}
        if domain == "kernel":
            packet_ctx = struct(tc, [("cpu_id", tc.create_unsigned_integer_field_class(32))])
            sc = tc.create_stream_class(
                default_clock_class=cc, supports_packets=True,
                packets_have_beginning_default_clock_snapshot=True,
                packets_have_end_default_clock_snapshot=True,
                packet_context_field_class=packet_ctx)
            classes = kernel_classes(tc, sc)
            trace = tc(environment=dict(common, domain="kernel", tracer_name="lttng-modules",
                                        sysname="Linux", kernel_release="6.1.0-fixture"))
        else:
            packet_ctx = struct(tc, [("cpu_id", tc.create_unsigned_integer_field_class(32))])
            ctx = struct(tc, [("vpid", tc.create_signed_integer_field_class(32)),
                              ("vtid", tc.create_signed_integer_field_class(32)),
                              ("procname", tc.create_string_field_class())])
            sc = tc.create_stream_class(
                default_clock_class=cc, supports_packets=True,
                packets_have_beginning_default_clock_snapshot=True,
                packets_have_end_default_clock_snapshot=True,
                packet_context_field_class=packet_ctx, event_common_context_field_class=ctx)
            classes = ust_classes(tc, sc)
            trace = tc(environment=dict(common, domain="ust", tracer_name="lttng-ust",
                                        tracer_buffering_scheme="uid", tracer_buffering_id=0))
        self._add_output_port("out", lambda it: self.messages(it, domain, run, trace, sc, classes))

    @staticmethod
    def messages(it, domain, run, trace, sc, classes):
        # One stream per CPU, each one packet, as lttng's per-CPU buffers.
        if domain == "kernel":
            per_cpu = [(cpu, [(ts, name, f, None) for ts, name, f in evs])
                       for cpu, evs in sorted(run.kernel.items())]
        else:
            per_cpu = [(0, [(ts, name, f, (pid, tid)) for ts, pid, tid, name, f in run.ust])]
        for cpu, evs in per_cpu:
            if not evs:
                continue
            # Named as lttng names its stream files: channel, underscore, CPU.
            stream = trace.create_stream(sc, name="%s_%d" % (
                "channel0" if domain == "kernel" else "nccltap", cpu))
            packet = stream.create_packet()
            packet.context_field["cpu_id"] = cpu
            yield it._create_stream_beginning_message(stream)
            yield it._create_packet_beginning_message(packet, evs[0][0])
            for ts, name, fields, ids in evs:
                if domain == "ust":
                    name = "nccltap:" + name
                m = it._create_event_message(classes[name], packet, ts)
                for k, v in fields.items():
                    m.event.payload_field[k] = v
                if ids:
                    ctx = m.event.common_context_field
                    ctx["vpid"], ctx["vtid"], ctx["procname"] = ids[0], ids[1], "python3"
                yield m
            yield it._create_packet_end_message(packet, evs[-1][0])
            yield it._create_stream_end_message(stream)


# ---- the kernel trace, as lttng-modules writes it ----------------------------

CTF_MAGIC = 0xC1FC1FC1
TRACE_UUID = uuid.UUID("4b2d7e1a-8c3f-4e59-a0d6-1f7b9c2e5a34")
PAGE = 4096
EXTENDED = 65535                 # event_header_large's id for the extended form

COMM = "integer { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _%s[16];"
INT = "integer { size = %d; align = 8; signed = %d; encoding = none; base = 10; } _%s;"
# name, id, [(field, kind)]: kinds comm (char[16]), i32, u32, i64, str, seq32
# (an int32 sequence after its uint8 length), as lttng-modules 2.13 declares them.
KERNEL_EVENTS = [
    ("sched_switch", 1, [("prev_comm", "comm"), ("prev_tid", "i32"), ("prev_prio", "i32"),
                         ("prev_state", "i64"), ("next_comm", "comm"), ("next_tid", "i32"),
                         ("next_prio", "i32")]),
    ("sched_wakeup", 2, [("comm", "comm"), ("tid", "i32"), ("prio", "i32"), ("target_cpu", "i32")]),
    ("sched_process_fork", 3, [("parent_comm", "comm"), ("parent_tid", "i32"), ("parent_pid", "i32"),
                               ("parent_ns_inum", "u32"), ("child_comm", "comm"), ("child_tid", "i32"),
                               ("vtids", "seq32"), ("child_pid", "i32"), ("child_ns_inum", "u32")]),
    ("irq_handler_entry", 4, [("irq", "i32"), ("name", "str")]),
    ("irq_handler_exit", 5, [("irq", "i32"), ("ret", "i32")]),
]


def kernel_metadata():
    decl = {"i32": (32, 1), "u32": (32, 0), "i64": (64, 1)}
    events = []
    for name, eid, fields in KERNEL_EVENTS:
        lines = []
        for f, kind in fields:
            if kind == "comm":
                lines.append(COMM % f)
            elif kind == "str":
                lines.append("string _%s;" % f)
            elif kind == "seq32":
                lines.append(INT % (8, 0, "_%s_length" % f))
                lines.append("integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } "
                             "_%s[ __%s_length ];" % (f, f))
            else:
                lines.append(INT % (decl[kind] + (f,)))
        events.append("event {\n\tname = \"%s\";\n\tid = %d;\n\tstream_id = 0;\n\tfields := struct {\n%s\n\t};\n};\n"
                      % (name, eid, "\n".join("\t\t" + l for l in lines)))
    return """/* CTF 1.8 */

typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = false; } := unsigned long;

trace {
\tmajor = 1;
\tminor = 8;
\tuuid = "%s";
\tbyte_order = le;
\tpacket.header := struct {
\t\tuint32_t magic;
\t\tuint8_t  uuid[16];
\t\tuint32_t stream_id;
\t\tuint64_t stream_instance_id;
\t};
};

env {
\thostname = "%s";
\tdomain = "kernel";
\tsysname = "Linux";
\tkernel_release = "6.1.0-fixture";
\ttracer_name = "lttng-modules";
\ttracer_major = 2;
\ttracer_minor = 13;
\ttracer_patchlevel = 0;
\ttrace_name = "nccltap-fixture";
\tarchitecture_bit_width = 64;
};

clock {
\tname = "monotonic";
\tuuid = "%s";
\tdescription = "Monotonic Clock";
\tfreq = 1000000000;
\toffset = %d;
};

typealias integer {
\tsize = 32; align = 8; signed = false;
\tmap = clock.monotonic.value;
} := uint32_clock_monotonic_t;

typealias integer {
\tsize = 64; align = 8; signed = false;
\tmap = clock.monotonic.value;
} := uint64_clock_monotonic_t;

struct packet_context {
\tuint64_clock_monotonic_t timestamp_begin;
\tuint64_clock_monotonic_t timestamp_end;
\tuint64_t content_size;
\tuint64_t packet_size;
\tuint64_t packet_seq_num;
\tunsigned long events_discarded;
\tuint32_t cpu_id;
};

struct event_header_large {
\tenum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;
\tvariant <id> {
\t\tstruct {
\t\t\tuint32_clock_monotonic_t timestamp;
\t\t} compact;
\t\tstruct {
\t\t\tuint32_t id;
\t\t\tuint64_clock_monotonic_t timestamp;
\t\t} extended;
\t} v;
} align(8);

stream {
\tid = 0;
\tevent.header := struct event_header_large;
\tpacket.context := struct packet_context;
};

""" % (TRACE_UUID, HOST, BOOT_ID, EPOCH_OFFSET_S * 1_000_000_000) + "\n".join(events)


def kernel_event(ts, name, fields):
    """One event: the large header's extended form (full id and 64-bit
    timestamp), then the payload, every field byte-aligned as declared."""
    eid, decl = next((eid, decl) for n, eid, decl in KERNEL_EVENTS if n == name)
    out = bin.pack("<HIQ", EXTENDED, eid, ts)
    for f, kind in decl:
        v = fields[f]
        if kind == "comm":
            b = v.encode()
            assert len(b) < 16, v  # TASK_COMM_LEN, its NUL included
            out += b.ljust(16, b"\0")
        elif kind == "str":
            out += v.encode() + b"\0"
        elif kind == "seq32":
            out += bin.pack("<B%di" % len(v), len(v), *v)
        else:
            out += bin.pack({"i32": "<i", "u32": "<I", "i64": "<q"}[kind], v)
    return out


def write_kernel(run, path):
    """OUTDIR/kernel: metadata and one stream file per CPU (channel0_CPU),
    each one packet."""
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "metadata"), "w") as f:
        f.write(kernel_metadata())
    for cpu, evs in sorted(run.kernel.items()):
        if not evs:
            continue
        body = b"".join(kernel_event(ts, name, fields) for ts, name, fields in evs)
        header_size = 32 + 52
        content = header_size + len(body)
        size = (content + PAGE - 1) // PAGE * PAGE
        header = bin.pack("<I16sIQ", CTF_MAGIC, TRACE_UUID.bytes, 0, cpu)
        context = bin.pack("<QQQQQQI", evs[0][0], evs[-1][0], content * 8, size * 8, 0, 0, cpu)
        with open(os.path.join(path, "channel0_%d" % cpu), "wb") as f:
            f.write((header + context + body).ljust(size, b"\0"))


def write(domain, run, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    g = bt2.Graph()
    src = g.add_component(Source, "src", obj=(domain, run))
    sink = g.add_component(bt2.find_plugin("ctf").sink_component_classes["fs"], "sink",
                           {"path": path, "assume-single-trace": True})
    g.connect_ports(src.output_ports["out"], sink.input_ports["in"])
    g.run()


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("straggler", "irq_storm", "in_op", "clean", "both"):
        sys.exit(__doc__)
    case, out = sys.argv[1], sys.argv[2]
    shutil.rmtree(out, ignore_errors=True)
    run = Run(case)
    write_kernel(run, os.path.join(out, "kernel"))
    write("ust", run, os.path.join(out, "ust", "uid", "0", "64-bit"))


if __name__ == "__main__":
    main()
