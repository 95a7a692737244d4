/* The nccltap events of an LTTng trace (tracepoints/nccltap_tp.h), and the
 * kernel events of lttng-modules that explain them, as plain C values: what
 * the report needs of them, apart from how they are read. */
#ifndef NCCLTAP_CLI_TRACE_EVENTS_H
#define NCCLTAP_CLI_TRACE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tev_kind {
    TEV_COMM_INIT,
    TEV_COMM_DESTROY,
    TEV_OP_ENQUEUE,
    TEV_OP_COMPLETE,
    TEV_GROUP_END,
    TEV_OP_CAPTURED,
    TEV_HANG,
    TEV_CALLSITE,
    TEV_MODULE,
    TEV_PYTHON_FRAME,        /* a line of Python that call sites name */
    TEV_PYTHON_UNREAD,       /* calls whose Python frame could not be read, so far */
    TEV_OS_OFFCPU,           /* the shim's own record of a thread off its CPU (NCCLTAP_OS) */
    TEV_STEP,                /* the program marked a step (nccltap_step()) */
    TEV_ENTRY_POINT,         /* a call of NCCL's other entry points (memory, registration...) */
    TEV_PROCESS_END,         /* the process exited, its last calls collected */
    TEV_DECLARED,            /* the trace of `host` declares nccltap event `name` (without
                              * "nccltap:"): its session recorded such events, whether or
                              * not one came (vpid -1; at each stream's beginning) */
    /* lttng-modules' (include/instrumentation/events/sched.h, irq.h,
     * lttng-statedump.h), in a kernel trace */
    TEV_SCHED_SWITCH,
    TEV_SCHED_WAKEUP,
    TEV_PROCESS_FORK,        /* sched_process_fork: a new thread's process */
    TEV_STATEDUMP_PROCESS,   /* lttng_statedump_process_state: one at start */
    TEV_IRQ_ENTRY,
    TEV_IRQ_EXIT,
};

/* True for the kernel's events. */
static inline bool tev_is_kernel(enum tev_kind k)
{
    return k >= TEV_SCHED_SWITCH;
}

/* One event. Strings are valid during the callback only. A field the event
 * does not have is 0 or "". A string, an array or a bool added here goes
 * into trace_wire.c's lists too: events cross a pipe from the reader. */
struct tev {
    enum tev_kind kind;
    const char *host;      /* the trace's "hostname", "" when unknown */
    int64_t vpid;          /* the vpid context; -1 when the event has none */
    int64_t vtid;          /* the vtid context; -1 when the event has none */
    uint64_t ts_ns;        /* since the clock's origin; 0 when unknown */

    uint64_t comm_id;
    int64_t rank;
    uint64_t seq;

    /* comm_init */
    const char *name, *gpu_uuid, *origin;
    int64_t nranks, device, nccl_version;
    uint64_t parent_id;
    uint64_t init_ns;      /* the init call's host time; 0 when unknown */
    /* comm_destroy: "finalize", "destroy" or "abort" */
    const char *how;
    /* op_enqueue, op_captured: the enumerations' labels ("AllReduce",
     * "float32"), "" for a value without one */
    const char *op, *dtype;
    int64_t op_value, dtype_value;
    uint64_t count, bytes, group_id, stream;
    int64_t peer;
    /* op_enqueue: the call's profiler tag (absent before nccltap read it: 0) */
    uint64_t user_tag;
    /* op_enqueue, group_end: it has events, an op_complete will follow
     * (absent before nccltap said so: false) */
    bool marked;
    /* op_complete; replay: 0 a call, N the Nth launch of a graph holding
     * call seq (absent from traces of nccltap before it: 0) */
    uint64_t start_ns, end_ns, duration_ns, group_ops, replay;
    double algbw_gbs, busbw_gbs;
    /* op_complete (absent before nccltap stamped ops: 0): from marks, each
     * end known to within its span */
    bool stamped, start_at_call;  /* field `stamped` 1, 2 */
    uint64_t start_span_ns, end_span_ns;
    /* hang (also rank, nranks, seq, op, bytes); untimed: the stuck op is
     * an untimed last op (absent before nccltap traced those: 0) */
    bool started, untimed;
    uint64_t issued, done_seq, pending_ns;
    /* op_enqueue, hang, callsite: a call site's id (0: none) */
    uint64_t site;
    /* callsite: its return addresses, innermost first, and the ids of the
     * python_frame events that made its calls, innermost first (none: a
     * native site, or a trace from before nccltap traced them) */
    const uint64_t *frames;
    size_t nframes;
    const uint64_t *python;
    size_t npython;
    /* entry_point: the function (`name`) and what NCCL returned */
    int64_t result;
    /* python_unread: `calls`; process_end: the process's calls; step: the
     * steps marked so far (`calls`), and
     * the mark's time (`out_ns`, CLOCK_MONOTONIC) */
    uint64_t calls;
    /* python_frame: its id (`site` unused), file, line and function */
    uint64_t py_id;
    const char *py_file, *py_function;
    int64_t py_line;
    /* module: a loaded object (file address = address - base) */
    const char *path, *build_id;
    uint64_t base, start, end;
    /* os_offcpu (also tid, comm): off its CPU `off_cpu` from out_ns to in_ns */
    uint64_t out_ns, in_ns;
    int64_t off_cpu;
    bool preempted;
    /* group_end */
    uint64_t ops;
    bool timed, simulated, failed;

    /* kernel events: the CPU (the packet context's cpu_id) */
    uint32_t cpu;
    /* sched_switch: prev left the CPU in prev_state (lttng-modules' value:
     * 0 or TASK_REPORT_MAX when preempted, a sleeping state's bit when it
     * waits), next got it */
    const char *prev_comm, *next_comm;
    int64_t prev_tid, next_tid, prev_state;
    /* sched_wakeup (tid, comm, target_cpu); sched_process_fork (the child:
     * tid, comm, pid); lttng_statedump_process_state (tid, comm, pid) */
    int64_t tid, pid, target_cpu;
    const char *comm;
    /* irq_handler_entry (irq, name), irq_handler_exit (irq) */
    int64_t irq;
    const char *irq_name;
};

/* What the trace said besides its events. */
struct trace_stats {
    uint64_t events;              /* nccltap events read */
    uint64_t kernel_events;       /* kernel events read (the kinds above) */
    uint64_t discarded_events;    /* LTTng's discarded-events records */
    uint64_t discarded_packets;
};

typedef void (*tev_fn)(const struct tev *e, void *data);

/* trace_read's result when its reader died (a signal, an exit without its
 * result): libbabeltrace2 aborts on some damaged traces. */
#define TRACE_READ_DIED (-2)

/* Reads the CTF traces in dirs[0..n) (each a directory with a `metadata`
 * file) and calls `fn` for each nccltap event and each kernel event above,
 * in time order. libbabeltrace2 reads them in a child process, so that an
 * abort or a crash in it on a damaged trace ends the child, not the
 * report (trace_child.c); the events cross a pipe (trace_wire.h). Returns
 * 0, or -1 or TRACE_READ_DIED with *error (malloc'ed); after
 * TRACE_READ_DIED, `fn` has had the events read before the reader died. */
int trace_read(char *const *dirs, size_t n, tev_fn fn, void *data, struct trace_stats *stats,
               char **error);

/* The child's part of trace_read, in the calling process: trace_read.c,
 * with libbabeltrace2; trace_read_none.c when nccltap was built without
 * it. The same contract, but for TRACE_READ_DIED. */
/* The reader child ends (SIGALRM) when libbabeltrace2 gives it no message
 * for this long: a crafted trace can make it loop for ever, and the
 * report must not hang (trace_child.c arms it, trace_read.c re-arms it at
 * each batch of messages). */
#define TRACE_READ_IDLE_S 8

int trace_read_in_process(char *const *dirs, size_t n, tev_fn fn, void *data, struct trace_stats *stats,
                          char **error);

#endif
