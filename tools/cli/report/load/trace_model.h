/* The traced processes, gathered from nccltap's events: what each one's
 * struct rank_file is filled from (trace_doc.c). */
#ifndef NCCLTAP_CLI_TRACE_MODEL_H
#define NCCLTAP_CLI_TRACE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_events.h"

/* A communicator as one rank of the process holds it. */
struct tm_comm {
    uint64_t id, parent_id;
    int rank, nranks, device;
    char *name, *origin;
    const char *state;   /* "alive", "finalized", "destroyed", "aborted" */
    uint64_t calls;      /* the highest sequence number seen + 1 */
    uint64_t init_ns;    /* the init call's host time; 0 when unknown */
};

/* An op_enqueue. `op` and `dtype` point into the model's string table. */
struct tm_op {
    uint64_t comm_id, seq, count, bytes, group_id, stream;
    uint64_t ts_ns;   /* the event's time: when the call was made */
    int rank, peer;
    uint32_t tid;     /* the vtid context, 0 when absent */
    unsigned site;    /* its call site, 0: none */
    uint64_t user_tag; /* its profiler tag, 0: none */
    const char *op, *dtype;
    bool marked;      /* it has events: an op_complete says when it ran */
};

/* An op_complete: of a call (replay 0), or the replay-th execution of the
 * call `seq` captured into a CUDA graph. */
struct tm_done {
    uint64_t comm_id, seq, start_ns, end_ns, duration_ns, group_ops, replay;
    int rank;
    double algbw_gbs, busbw_gbs;
    bool stamped, start_at_call;   /* from marks: no precise time (tev.stamped) */
    uint64_t start_span_ns, end_span_ns;
};

/* The latest hang event of one communicator. `op` points into the model's
 * string table. */
struct tm_hang {
    uint64_t comm_id, seq, bytes, issued, done_seq, pending_ns;
    int rank, nranks;
    const char *op;
    bool started, untimed;  /* untimed: the stuck op is an untimed last op */
    unsigned reports;    /* hang events of this communicator */
    unsigned site;       /* the stuck op's call site, 0: none */
};

/* A callsite event: a site's return addresses, innermost first (the zeros
 * past the stack's end left out, as the per-rank file writes them), and
 * the ids of its Python frames (tm_pyframe), innermost first. */
struct tm_site {
    unsigned id;
    uint64_t *frames;
    size_t nframes;
    uint64_t *python;
    size_t npython;
};

/* A python_frame event: a line of Python that sites name by id. */
struct tm_pyframe {
    uint64_t id;
    char *file, *function;
    int64_t line;
};

/* A module event: an object the sites' frames are in. */
struct tm_module {
    char *path, *build_id;
    uint64_t base, start, end;
};

/* An os_offcpu: a thread of the process off its CPU (the shim's NCCLTAP_OS). */
struct tm_off {
    uint64_t out_ns, in_ns;
    int64_t tid, cpu;
    bool preempted;
};

/* A thread os_offcpu events name. */
struct tm_thread {
    int64_t tid;
    char comm[16];
};

/* os_offcpu events kept per process, as many as the rank file's loader
 * takes (load/os_records.c); past them, counted. */
#define TM_MAX_OFFS (1u << 20)

/* A group_end. */
struct tm_group {
    uint64_t id;
    bool simulated, failed;
    bool marked;      /* its ops have events: each one's op_complete says when */
};

/* A function's entry_point events: calls, and those NCCL refused. */
struct tm_entry {
    char *name;
    uint64_t calls, failed;
};

#define TM_ARRAY(type, name) type *name; size_t n##name, cap_##name

struct tm_proc {
    char *host;
    int64_t vpid;
    uint64_t first_ns, last_ns;  /* of its nccltap events; 0 when unknown */
    int nccl_version;            /* NCCL_VERSION_CODE of its first comm_init */
    uint64_t captured;           /* op_captured events */
    uint64_t python_unread;      /* the largest python_unread count */
    uint64_t steps_marked;       /* the largest step count of its step events */
    bool ended;                  /* a process_end event: it exited, not killed */
    /* What its host's trace declares (TEV_DECLARED): a call without an
     * op_complete never completed; a process without process_end was
     * killed. Neither in a session that left the event out, nor in a
     * trace of nccltap before process_end. */
    bool completions_recorded, ends_recorded;
    TM_ARRAY(uint64_t, step_marks);  /* their times, as the events came */
    TM_ARRAY(struct tm_entry, entries);  /* entry_point events, by name */
    TM_ARRAY(struct tm_comm, comms);
    TM_ARRAY(struct tm_op, ops);
    TM_ARRAY(struct tm_done, done);      /* of calls: what the rows are made of */
    TM_ARRAY(struct tm_done, replays);   /* of executions of captured calls */
    TM_ARRAY(struct tm_group, groups);
    TM_ARRAY(struct tm_hang, hangs);
    TM_ARRAY(struct tm_site, sites);
    TM_ARRAY(struct tm_module, modules);
    TM_ARRAY(struct tm_pyframe, pyframes);
    TM_ARRAY(struct tm_off, offs);
    TM_ARRAY(struct tm_thread, os_threads);
    uint64_t offs_dropped;       /* os_offcpu events past TM_MAX_OFFS */
    size_t callsite_depth;       /* frames per site, as the events give them (zeros included) */
};

/* The events a host's trace declares that the report reads the absence of. */
struct tm_declared {
    char *host;
    bool op_complete, process_end;
};

struct trace_model {
    TM_ARRAY(struct tm_proc, procs);
    TM_ARRAY(struct tm_declared, declared);
    TM_ARRAY(char *, strings);   /* the distinct op and datatype names */
    size_t last_proc;            /* where the last event went */
    bool no_vpid_said;
};

/* Adds one event (a tev_fn: `model` is a struct trace_model, zeroed at
 * first). */
void trace_model_add(const struct tev *e, void *model);
void trace_model_free(struct trace_model *m);

#endif
