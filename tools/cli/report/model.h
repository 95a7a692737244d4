/* The report's document model: what the loaders (load/) fill from per-rank
 * files, per-op logs and LTTng traces, what the analyses (analyze/) read and
 * extend, and what the renderers (render/) print. One run is one struct
 * report; each traced process is one struct rank_file, whatever it was read
 * from.
 *
 * Memory: the model holds no parsed JSON. A loader reads one file, copies
 * what the report needs into these structs and frees the file's document
 * before reading the next, so that a run of thousands of ranks costs its
 * rows, not its files. Every string (host, job, communicator ids and names,
 * op and datatype names...) is interned in the report (report_intern): it
 * lives as long as the report, and equal strings are equal pointers, so a
 * comparison may test the pointers before strcmp(). Histogram bins live in
 * the report's arena (report_alloc), freed with it. model.c */
#ifndef NCCLTAP_CLI_REPORT_MODEL_H
#define NCCLTAP_CLI_REPORT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One bucket of a duration histogram: `count` timed calls that took between
 * 1.04^bucket and 1.04^(bucket+1) ns. 32-bit counts, as the shim keeps them:
 * a row of a thousand ranks holds tens of thousands of bins. */
struct hist_bin {
    int32_t bucket;  /* 0 .. REPORT_HIST_BUCKETS - 1 */
    uint32_t count;
};

/* The shim's TAP_HIST_BUCKETS: 1.04^720 ns is about 30 minutes. */
#define REPORT_HIST_BUCKETS 720

/* One row of a file's "ops": one (rank, communicator, op, dtype, size class). */
struct op_row {
    const struct rank_file *file;  /* the process it came from */
    int rank;                      /* the rank in `comm` */
    const char *comm;              /* 16 hex digits, the same on every rank (interned) */
    const char *comm_name;         /* ncclConfig_t.commName, "" if none (interned) */
    const char *op, *dtype;        /* as NCCL spells them: "AllReduce", "float32" (interned) */
    uint64_t size_class;           /* the power of two at or below the size */
    double bytes;                  /* mean S per call (nccl-tests' size) */
    uint64_t calls, timed, bytes_total;  /* timed: every timed call, the first included */
    uint64_t stamped;              /* calls whose interval is from marks: in the time in NCCL,
                                    * not in the times below (0 in older files) */
    /* Of the calls, those captured into CUDA graphs, and how many times
     * they ran (graph launches); with captures, `timed` and the times are
     * over executions. 0 in rows without (and in older files). */
    uint64_t captured, executions;
    double grouped;                /* mean number of ops timed as one group (1: none) */
    /* The row's first timed call, kept apart from everything below: NCCL
     * connects lazily, and the first call that needs a connection can take
     * 10^4 times the steady time. NaN (null in JSON) when none was timed.
     * The text shows it where it exceeds 10 x p50, with a footnote. */
    double first_us;
    /* The times and bandwidths below are over the t_count timed calls
     * other than the first (timed - 1, or 0). With t_count 0 the doubles
     * are NaN (null in JSON: no time is not a time of 0), t_min and t_max 0. */
    uint64_t t_count;
    uint64_t t_sum, t_min, t_max;  /* time_ns */
    double us_mean, us_min, us_p50, us_p90, us_p99, us_max;
    double algbw_gbs, busbw_gbs;   /* means */
    double bw_bytes, bw_busbytes;  /* S and S x bus factor (a group's, for a grouped call) */
    struct hist_bin *hist;         /* non-empty buckets, for merging ranks (in the arena) */
    size_t nhist;
};

/* One operation whose interval is known: timed with an event pair, or
 * stamped with marks (OP_STAMPED: its start, when its stream got to it,
 * and its end, each known to within its span, the polls' resolution). A
 * record of the per-op file (nccltap-<host>-<pid>.ops, binary, written by
 * default), a line of the JSON-lines log (NCCLTAP_OPS_JSONL), or an
 * op_enqueue joined to its op_complete in a trace. The records every
 * cross-rank analysis works from. Times are the process's CLOCK_MONOTONIC
 * in ns (rank_file.clock_offset_ns aligns them across processes and
 * hosts, once analyze/crossrank.c has estimated it).
 * 80 bytes: a report holds millions of them (1,024 ranks x 10,000 ops
 * fit in 1 GiB), so names and streams are indices and the element count
 * and per-op bandwidth, which follow from the rest, are not kept. */
struct op_event {
    uint64_t comm;           /* the communicator id, as a number */
    uint64_t seq;            /* its number in the communicator, from 0 */
    uint64_t bytes;          /* S, nccl-tests' size */
    /* Its group id (0 when not grouped) or, for an execution of a captured
     * call (never grouped: the shim times no op captured in a group), its
     * replay number with OP_REPLAY_BIT set. Read with op_group() and
     * op_replay(), set with op_set_group_replay(): one field, so that a
     * record stays 80 bytes (crossrank.scale's memory budget). */
    uint64_t group_or_replay;
    uint64_t enqueue_ns;     /* when the call was made */
    uint64_t start_ns, end_ns;  /* the GPU interval */
    int32_t rank;            /* the rank in `comm` */
    int32_t peer;            /* root or peer rank, -1 if none */
    uint32_t tid;            /* the calling thread, 0 if unknown */
    uint16_t group_ops;      /* ops timed together with it (1: alone) */
    uint16_t stream;         /* its CUDA stream: rank_file.streams[stream] */
    /* OP_STAMPED: the widths of the intervals its start and end lie in, in
     * us (saturated at 65,535); 0 for a timed op. */
    uint16_t start_span_us, end_span_us;
    uint8_t op, dtype;       /* report_name(r, e->op): "AllReduce", "float32" */
    uint8_t flags;           /* OP_STAMPED, OP_START_AT_CALL */
    uint8_t redop;           /* its reduction, op_redop_of(); OP_REDOP_UNKNOWN (0, what a
                              * zeroed record holds) where the source has none: a trace,
                              * a per-op file before version 4. The record's last byte */
};
_Static_assert(sizeof(struct op_event) == 80, "a report holds millions of op events: 80 bytes each");

/* The reduction of an op_event: 0 not recorded; 1 none (not a reduction);
 * 2 + ncclRedOp_t for NCCL's five (sum prod max min avg); 7 any user
 * reduction (PreMulSum...), whose handles are per rank and not compared. */
#define OP_REDOP_UNKNOWN 0
#define OP_REDOP_NONE 1
#define OP_REDOP_USER 7

/* From the shim's redop (-1: none). */
static inline uint8_t op_redop_of(int64_t redop)
{
    return redop < 0 ? OP_REDOP_NONE : redop < 5 ? (uint8_t)(2 + redop) : OP_REDOP_USER;
}

/* The byte of a per-op log's "redop": a name below, or "premulsum#N" (a
 * user op: OP_REDOP_USER); null: none; absent: unknown; OP_REDOP_UNKNOWN
 * for any other string. model.c */
uint8_t op_redop_from_name(const char *name);

/* "sum", "prod", "max", "min", "avg", "user"; NULL for none or unknown. */
static inline const char *op_redop_name(uint8_t redop)
{
    static const char *const names[] = { NULL, NULL, "sum", "prod", "max", "min", "avg", "user" };
    return redop < sizeof names / sizeof names[0] ? names[redop] : NULL;
}

#define OP_STAMPED 0x1       /* the interval is from marks, not a timed pair */
/* Stamped, and its stream was idle when it was called: start_ns is the
 * call, the low end of its span (the truth may be later, never earlier);
 * otherwise a stamped start is its span's middle. */
#define OP_START_AT_CALL 0x2

/* A row's bw_busbytes (bw_bytes) over its timed time in GB/s (bytes per
 * ns), 0 when untimed. */
static inline double op_row_busbw_total(const struct op_row *row)
{
    return row->t_count && row->t_sum ? row->bw_busbytes / (double)row->t_sum : 0.0;
}
static inline double op_row_algbw_total(const struct op_row *row)
{
    return row->t_count && row->t_sum ? row->bw_bytes / (double)row->t_sum : 0.0;
}

/* A span in ns as op_event keeps it. */
static inline uint16_t op_span_us(uint64_t ns)
{
    uint64_t us = (ns + 999) / 1000;
    return us > UINT16_MAX ? UINT16_MAX : (uint16_t)us;
}

#define OP_REPLAY_BIT (1ull << 63)

/* The group id of e, 0 when not grouped. */
static inline uint64_t op_group(const struct op_event *e)
{
    return e->group_or_replay & OP_REPLAY_BIT ? 0 : e->group_or_replay;
}

/* 0: a call; N: the Nth execution of the call `seq` captured into a CUDA
 * graph (a launch, no call: enqueue_ns is the launch's, 0 from a trace).
 * (comm, seq, replay) is one collective instance on every rank. */
static inline uint64_t op_replay(const struct op_event *e)
{
    return e->group_or_replay & OP_REPLAY_BIT ? e->group_or_replay & ~OP_REPLAY_BIT : 0;
}

/* False, and e unchanged, for what no shim writes: both, or either past
 * 2^62 (REPORT_MAX_COUNT). */
static inline bool op_set_group_replay(struct op_event *e, uint64_t group, uint64_t replay)
{
    if ((group && replay) || group >= (1ull << 62) || replay >= (1ull << 62))
        return false;
    e->group_or_replay = replay ? replay | OP_REPLAY_BIT : group;
    return true;
}

/* The ncclConfig_t a communicator's creation was given on one rank (the
 * rank file's comms[].config). Fields NCCL leaves undefined, or that the
 * config's version lacks: COMM_CONFIG_UNSET. */
struct comm_config {
    int version;             /* its NCCL_VERSION_CODE; 0: no config given (or an older file) */
    int blocking, cga_cluster_size, min_ctas, max_ctas, split_share, traffic_class;
    const char *net_name;    /* interned; "" unset */
};
#define COMM_CONFIG_UNSET INT32_MIN

/* One entry of a file's "comms": this process's view of a communicator.
 * Strings interned. */
struct comm_entry {
    const char *id, *parent, *name, *origin, *state;
    int rank, nranks;
    /* Host time of the call that created it on this rank (init, split...),
     * in ms: NCCL's bootstrap and set-up. NaN (null) when not seen. */
    double init_ms;
    uint64_t calls;          /* ops issued on it: the next seq (0 if not said) */
    struct comm_config config;
};

/* An op of a burst between two marks that was still waiting on a rank
 * (the hang file's "between"): what it called at that seq. */
struct hang_call_at {
    uint64_t seq, bytes;
    const char *op, *dtype;  /* interned */
    uint8_t redop;           /* op_redop_of() */
    int root;                /* root or peer, -1: none */
};
#define HANG_BETWEEN_MAX 32  /* the shim writes at most this many (TAP_HANG_BETWEEN_MAX) */

/* One communicator in a hang report (a hang file, or a trace's `hang`
 * event): where this rank stood when the watchdog fired. */
struct hang_comm {
    uint64_t comm;
    int rank, nranks;
    uint64_t issued;         /* ops issued: the next seq */
    int64_t last_done;       /* the latest timed op completed, -1: none */
    bool pending;            /* it had a timed op not complete: */
    uint64_t seq, bytes;     /* the oldest one */
    const char *op;          /* interned */
    const char *dtype;       /* interned; "" when the file does not say (an older shim) */
    uint8_t redop;           /* op_redop_of(); OP_REDOP_UNKNOWN when the file does not say */
    int root;                /* root or peer, -1: none (or not said) */
    bool started;            /* its GPU start event completed: the rank arrived */
    bool untimed;            /* the op is the last it issued, not timed (auto), in a
                                process quiet for the timeout: started not known */
    double pending_s;        /* how long it had waited */
    unsigned site;           /* where it was called: the id of a callsite of its
                                process (struct callsite.id), 0: not known */
    struct hang_call_at *between;  /* waiting ops of a burst, by seq (owned; NULL: none) */
    size_t nbetween;               /* at most HANG_BETWEEN_MAX */
};

/* One process's latest hang report (nccltap-<run>@<host>-<pid>.hang.json). */
struct hang_file {
    size_t file;             /* its process: r->files[file] */
    unsigned reports;        /* times the watchdog fired */
    struct hang_comm *comms;
    size_t ncomms;
};

/* One frame of a call site: a return address in the process, and what the
 * symbolizer (load/symbolize.c) found for it. Strings interned; "" unknown. */
struct site_frame {
    uint64_t addr;            /* the return address, as the process saw it */
    const char *library;      /* file name of the object it is in */
    uint64_t offset;          /* its address in that file (addr - load bias) */
    const char *function;     /* demangled; "library+0xoffset" without symbols */
    bool python;              /* a Python frame (the rank file's "python"): function, file and
                               * line from the interpreter, library "python", no address */
    const char *recorded;     /* the name the shim recorded ("symbols": its process's symbol
                               * tables), mangled; "" when none. Used where the report
                               * cannot read the object itself */
    const char *inlined_into; /* the function `function` was inlined into */
    const char *file;         /* source file, as the debug information names it */
    int line;                 /* 0 when unknown */
};

/* The calls one site made of one statistics row: the row's key, and the
 * row's counts restricted to those calls. Strings interned. */
struct site_row {
    const char *comm, *op, *dtype;
    uint64_t size_class;
    uint64_t calls, bytes_total;
    uint64_t timed, t_sum;          /* time_ns over its timed calls */
    double bw_bytes, bw_busbytes;   /* S and S x bus factor, over the timed calls */
};

/* One call site of one process: where its NCCL calls were made, innermost
 * frame first. Arrays in the arena. */
struct callsite {
    unsigned id;                /* the process's number for it; 0: calls made once its table was full */
    struct site_frame *frames;
    size_t nframes;
    struct site_row *rows;
    size_t nrows;
};

/* One loaded object of a process ("modules"): what symbolizes its frames. */
struct module_entry {
    const char *path, *build_id;   /* interned; build_id "" when it has none */
    uint64_t base;                 /* load bias: file address = address - base */
    uint64_t start, end;           /* the addresses it spans */
};

/* The counters of a file's "totals" (README, Outputs). */
struct totals {
    uint64_t calls, dropped, timed, untimed, captured, pending, failed;
    uint64_t stamped;    /* ops whose interval is from marks (optional) */
    uint64_t lost;       /* timed ops whose events never completed (optional) */
    uint64_t simulated;  /* in groups closed by ncclGroupSimulateEnd (optional) */
    uint64_t ops_lines_dropped; /* per-op log lines past NCCLTAP_OPS_MAX_MB (optional) */
    /* Calls issued but in no row yet when the file was written: still in
     * the queue or on the GPU, a hang or a killed process (optional). So
     * calls = rows' calls + dropped + failed + simulated + after_exit
     * + in_flight. */
    uint64_t in_flight;
    uint64_t no_memory;  /* allocations the shim could not make (optional) */
    uint64_t after_exit; /* calls made while the process wrote its last file: in no row (optional) */
    /* Communicators past the shim's bound of 4,096 a process: their calls
     * are in the "(overflow)" communicator's rows (optional). */
    uint64_t comms_past_limit;
    /* Executable CUDA graphs the shim could not follow: their launches,
     * and so their captured ops' executions, are not counted (optional). */
    uint64_t graphs_untracked;
};

/* Adds b into a. */
void totals_add(struct totals *a, const struct totals *b);

/* The index of stream `handle` in f->streams, added at its first sight
 * (log time: a file may name any number); UINT16_MAX for streams past
 * 65,534 (their records share it: handle 0, not known). */
uint16_t rank_file_stream(struct rank_file *f, uint64_t handle);
void rank_file_streams_free(struct rank_file *f);

/* A call's profiler tag (NCCL 2.31's userProfilerTag, per-op file
 * version 5): kept beside the op events, whose 80 bytes a report holds
 * millions of, since few calls carry one. A file's tags are by (comm,
 * rank, seq), one per call (the executions of a captured call share it). */
struct op_tag {
    uint64_t comm, seq, tag;
    int32_t rank;
};

/* Adds the tag of call (comm, rank, seq) to f (load time; 0 is none and
 * is not kept). */
void rank_file_add_tag(struct rank_file *f, uint64_t comm, int32_t rank, uint64_t seq, uint64_t tag);
/* Sorts f's tags, one per call; after loading. */
void rank_file_sort_tags(struct rank_file *f);
/* The tag of call (comm, rank, seq) in f; 0 for none. */
uint64_t rank_file_tag(const struct rank_file *f, uint64_t comm, int32_t rank, uint64_t seq);

/* The sizes of the communicators that files list ("comms"), by id, sorted
 * for comm_size_find; a loader checks ranks against them, the cross-rank
 * analysis sizes its arrays by them. */
struct comm_size {
    uint64_t id;
    int nranks;
};
/* Of files[0..nfiles): *n entries, malloc'ed. */
struct comm_size *comm_sizes_of(const struct rank_file *files, size_t nfiles, size_t *n);
/* The size of communicator `id`, or `unknown` when no file lists it. */
int comm_size_find(const struct comm_size *s, size_t n, uint64_t id, int unknown);

/* An NCCL_* variable of a process: its name (interned) and a hash of its
 * value (the value is never written: it may be a secret). */
struct env_var {
    const char *name;
    uint64_t hash;
};

/* One per-rank file, or one traced process. */
/* An NCCL entry point's calls in one process, and how many NCCL refused. */
struct entry_count {
    const char *name;        /* "ncclCommRegister" (interned) */
    uint64_t calls, failed;
};

struct rank_file {
    char *path;              /* what messages name it by */
    bool final;              /* written at exit, not at an interval */
    bool nccl_simulated;     /* its NCCL was nccltap's simulator (tests/sim) */
    const char *host, *job, *nccl_version, *timing, *timing_note;  /* interned */
    long long pid;
    double wall_s;           /* from the shim's load to the file's writing */
    /* The time the process had timed NCCL work on the GPU: the union of the
     * timed calls' intervals (a group once) over all its streams, and the
     * sum of their durations. NaN when the file predates them. The share of
     * wall time in NCCL is made of these (analyze/merge.h). */
    double nccl_busy_s, nccl_timed_s;
    int64_t clock_offset_ns; /* its clock minus the reference process's, as
                                estimated by analyze/crossrank.c (0 before) */
    /* How far its GPU times may be off its host's clock, from the shim's
     * calibration (a constant the ends' alignment cannot see): NaN when
     * the file does not say (an older shim, a trace). */
    double clock_calibration_error_ns;
    int *ranks;              /* ranks held in root communicators, ascending */
    size_t nranks;
    struct comm_entry *comms;
    size_t ncomms;
    struct op_row *ops;      /* the statistics rows */
    size_t nops;
    struct op_event *events; /* the per-op records, by (comm, rank, seq, replay); may be none */
    size_t nevents;
    uint64_t *streams;       /* the CUDA stream handles its records name (op_event.stream) */
    size_t nstreams;
    void *stream_tree;       /* handle -> index (tsearch), for rank_file_stream */
    uint16_t last_stream;
    uint64_t events_dropped; /* per-op records the shim dropped (NCCLTAP_OPS_MAX_MB) */
    struct op_tag *tags;     /* its calls' profiler tags (rank_file_tag); may be none */
    size_t ntags, cap_tags;
    struct totals totals;
    int callsite_depth;      /* frames per call site; 0: call sites off, or not recorded */
    uint64_t python_unread;  /* calls whose Python frame could not be read: at native sites */
    struct callsite *sites;  /* (arena) */
    size_t nsites;
    struct module_entry *modules;  /* objects its sites' frames are in (arena) */
    size_t nmodules;
    /* NCCLTAP_OS: "switch" or "off" (interned), NULL when the file has no
     * "os" (an older shim, or a trace); os_note why nothing was recorded
     * ("" when recording); os its records as the kernel's view of its own
     * threads (arena), NULL when none. */
    const char *os_mode, *os_note;
    struct kernel_trace *os;
    /* Its NCCL_* environment when its first communicator was created
     * ("nccl_env"): names and hashes of the values, by name (arena);
     * env_read false when the file does not say (an older shim, a trace). */
    struct env_var *env;
    size_t nenv;
    bool env_read;
    /* NCCL's effective parameters then ("nccl_params": its parameter API,
     * 2.30.3+), likewise; params_read false where the file has none. */
    struct env_var *params;
    size_t nparams;
    bool params_read;
    /* Its communicators' config fields (comms[].config) were recorded:
     * a shim that writes "nccl_env" does; an older one's files, and
     * traces, say nothing of them (not "unset"). */
    bool config_read;
    /* Its NCCL calls that neither move data nor make or end a
     * communicator ("entry_points": memory, registration, windows,
     * suspend/resume, revoke...), by name (interned; arena). */
    struct entry_count *entry_points;
    size_t nentry_points;
    /* The program's nccltap_step() marks ("steps"): made in all, and the
     * kept ones (CLOCK_MONOTONIC ns, increasing; arena). 0: none marked. */
    uint64_t steps_marked;
    uint64_t *step_marks;
    size_t nstep_marks;
};

/* ---- The kernel, from an LTTng kernel trace (lttng-modules' events) ----
 * Times are CLOCK_MONOTONIC ns, the clock of the op events; tids are the
 * kernel's (global) thread ids. Names are interned (report_intern). */

/* sched_switch: at ts_ns `cpu` went from prev_tid to next_tid. The names
 * are never NULL: "" where a task is not known (tid -1, in a process's own
 * records), so that every reader may print them. */
struct sched_switch {
    uint64_t ts_ns;
    uint32_t cpu;
    int32_t prev_tid, next_tid;
    /* How prev left, as lttng-modules records it: 0 (TASK_RUNNING, older
     * kernels) or TASK_REPORT_MAX (0x100, kernels >= 4.14) when it was
     * preempted and stays runnable; a sleeping state's bit (1 interruptible,
     * 2 uninterruptible, ...) when it waits for something. */
    int64_t prev_state;
    const char *prev_comm, *next_comm;
};

/* True when a switch took the CPU from a thread that still wanted it. */
static inline bool sched_switch_preempted(const struct sched_switch *s)
{
    return (s->prev_state & 0xff) == 0;
}

/* sched_wakeup: tid became runnable, to run on target_cpu. */
struct sched_wakeup {
    uint64_t ts_ns;
    int32_t tid;
    uint32_t target_cpu;
    const char *comm;
};

/* One run of an interrupt handler: irq_handler_entry to irq_handler_exit. */
struct irq_run {
    uint64_t start_ns, end_ns;
    uint32_t cpu;
    int irq;
    const char *name;    /* the handler's name, e.g. "mlx5_comp5" */
};

/* A thread and its process, from sched_process_fork or LTTng's state dump
 * at the session's start: how NCCL's threads are tied to a rank. */
struct kernel_thread {
    int32_t tid, pid;
    const char *comm;    /* its name when it was made or dumped */
};

/* The kernel side of one host's trace; each array sorted by time. */
struct kernel_trace {
    const char *host;    /* the trace's "hostname", as in struct rank_file */
    /* The source. false: an LTTng kernel session, every task of the host.
     * true: one process's own records (the shim's NCCLTAP_OS=switch,
     * perf_event_open), only its followed threads: a switch-out names no
     * next task (next_tid -1, next_comm ""), a switch-in no previous one
     * (prev_tid -1, prev_comm ""); no wakeups, no interrupts. */
    bool from_shim;
    uint64_t lost;       /* from_shim: records the kernel could not write (ring overruns) */
    uint64_t dropped;    /* from_shim: intervals the shim dropped past its bound */
    uint64_t unfollowed; /* from_shim: threads it could not follow (past its bound, no ring) */
    uint32_t ncpus;      /* the highest CPU seen + 1 */
    uint64_t first_ns, last_ns;
    struct sched_switch *switches;
    size_t nswitches;
    struct sched_wakeup *wakeups;
    size_t nwakeups;
    struct irq_run *irqs;   /* by start */
    size_t nirqs;
    struct kernel_thread *threads;
    size_t nthreads;
};

/* One run: every process of it. */
/* One op and size of nccltap-bench's own results (its --json), beside the
 * run: the busbw its own events gave, as nccl-tests would print it. */
struct bench_row {
    const char *op;      /* interned, as the bench names it ("AllReduce") */
    uint64_t bytes;      /* S, as nccl-tests counts it */
    double busbw_gbs;
    int rank;
};

struct report {
    const char *dir;     /* the directory or trace given */
    struct rank_file *files;
    size_t nfiles, files_cap;
    size_t nskipped;     /* files that could not be read, named on stderr */
    /* Records with a field out of range (load/input_limits.h), left out of
     * the document: per-op records, rank files' communicators and rows, hang
     * report entries, trace events. Each file with some is named on stderr. */
    uint64_t records_rejected;
    bool from_trace;     /* the files were built from an LTTng trace */
    uint64_t discarded;  /* events LTTng discarded (full buffers), trace only */
    struct report_strings *strings;  /* the interned strings (model.c) */
    struct report_arena *arena;      /* what report_alloc gave out (model.c) */
    struct kernel_trace *kernels;  /* one per host whose kernel was traced; trace only */
    size_t nkernels;
    struct hang_file *hangs;  /* processes that reported a hang; by file */
    size_t nhangs;
    const char *event_names[256];  /* the events' op and datatype names, by index (interned) */
    unsigned nevent_names;
    struct crossrank *cross;  /* analyze/crossrank_base.h, once analysed; NULL before */
    struct bench_row *bench;  /* nccltap-bench's results beside the run; NULL: none */
    size_t nbench;
};

/* The interned copy of `name` (owned by r): equal strings, equal pointers.
 * report_intern_n takes `len` bytes that need not end with a NUL. */
const char *report_intern(struct report *r, const char *name);
const char *report_intern_n(struct report *r, const char *name, size_t len);

/* `n` bytes, zeroed, aligned for any struct of the model, that live until
 * report_model_free(): for the many small arrays of a file (histograms),
 * without a malloc header each. */
void *report_alloc(struct report *r, size_t n);

/* Frees the interned strings and the arena (report_free does it too). */
void report_model_free(struct report *r);

/* The index of `name` among r->event_names, added if new: equal names,
 * equal indices. Past 255 names (damaged input) all further ones share the
 * last, "(other)". */
uint8_t report_name_index(struct report *r, const char *name);

/* The name at index i of r->event_names. */
/* The kernel's view of f's threads: the kernel trace of the host `f` ran
 * on, else f's own records (the shim's NCCLTAP_OS, f->os), NULL if none.
 * A host with both is read from its kernel trace only: the shim's records
 * are of the same switches, and would count them twice. model.c */
const struct kernel_trace *kernel_of(const struct report *r, const struct rank_file *f);

static inline const char *report_name(const struct report *r, uint8_t i)
{
    return i < r->nevent_names ? r->event_names[i] : "?";
}

#endif
