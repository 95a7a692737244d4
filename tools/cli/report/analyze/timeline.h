/* The run as tracks of events in time, what render/perfetto.c writes as
 * Chrome trace-event JSON: a process per rank with a track per CUDA stream
 * (a slice per timed op, grouped ops inside a group slice) and per thread
 * (host enqueues, time off the CPU); flows linking the instances of one
 * collective across ranks (analyze/crossrank.c); and, from a kernel trace,
 * a process per host with a track per CPU (who ran) and per CPU's
 * interrupts. Times are aligned across processes (crossrank's clock
 * offsets) and counted from the run's first op. timeline.c */
#ifndef NCCLTAP_CLI_REPORT_TIMELINE_H
#define NCCLTAP_CLI_REPORT_TIMELINE_H

#include "crossrank_base.h"
#include "model.h"
#include "os_interference.h"

/* What to keep: a time window and some ranks. */
struct tl_options {
    double from_s, to_s;   /* seconds from the run's first op; to_s < 0: to the end */
    const int *ranks;      /* processes holding one of these ranks; NULL: all */
    size_t nranks;
};

enum tl_what {
    TL_GROUP,     /* slice: the ops of one group on one stream */
    TL_OP,        /* slice: a timed op, or execution of a captured op, on its stream */
    TL_OFFCPU,    /* slice: a rank's thread off the CPU */
    TL_CPU_RUN,   /* slice: a task on a CPU */
    TL_IRQ,       /* slice: an interrupt handler on a CPU */
    TL_ENQUEUE,   /* instant: the call, on the calling thread (an execution has none) */
    TL_FLOW,      /* flow start, step or end: one collective across ranks */
};

struct tl_event {
    int64_t ts_ns, dur_ns;         /* from the origin; dur 0 but for slices */
    uint32_t pid, tid;             /* the track */
    enum tl_what what;
    char ph;                       /* 'X', 'i', 's', 't' or 'f' */
    const char *name;
    const struct rank_file *file;  /* ops, enqueues, groups: whose */
    const struct op_event *op;     /* ops, enqueues; groups: its first op */
    double busbw_gbs;              /* TL_OP: S x bus factor / time; 0 when grouped */
    const struct callsite *site;   /* TL_OP, TL_ENQUEUE: where it was called, when
                                      known (op_sites.h); NULL otherwise */
    uint64_t flow_id;              /* TL_FLOW: the instance, from 1 */
    bool p2p;                      /* TL_FLOW: a send and its receive */
    const char *detail;            /* TL_OFFCPU: preempted by (NULL: waiting);
                                      TL_IRQ: the handler */
    int64_t number;                /* TL_CPU_RUN: the tid; TL_IRQ: the irq */
};

/* What a process or track shows; its name is the renderer's to make from
 * the keys below. */
enum tl_track_kind {
    TL_TRACK_RANK,     /* process: a rank's (file: its host, pid, ranks) */
    TL_TRACK_STREAM,   /* a CUDA stream of that process (stream) */
    TL_TRACK_THREAD,   /* a thread of it (thread; comm when a kernel trace names it) */
    TL_TRACK_CALLS,    /* the enqueues of calls whose thread is unknown */
    TL_TRACK_HOST,     /* process: a host's CPUs, from its kernel trace (host) */
    TL_TRACK_CPU,      /* who ran on a CPU (cpu) */
    TL_TRACK_CPU_IRQ,  /* the interrupts on a CPU (cpu) */
};

/* A process (a rank's, or a host's CPUs) or a track in one. */
struct tl_track {
    uint32_t pid, tid;             /* tid 0: the process itself */
    enum tl_track_kind kind;
    int sort;
    const struct rank_file *file;  /* RANK, STREAM, THREAD, CALLS: whose */
    const char *host;              /* RANK, HOST: the host's name */
    uint64_t stream;               /* STREAM: the CUDA stream handle */
    uint32_t thread;               /* THREAD: its tid */
    const char *comm;              /* THREAD: its name in the kernel trace; NULL: none */
    uint32_t cpu;                  /* CPU, CPU_IRQ */
};

struct timeline {
    int64_t origin_ns;             /* the run's first op, CLOCK_MONOTONIC of the reference process */
    struct tl_track *tracks;       /* processes and their tracks, in display order */
    size_t ntracks;
    struct tl_event *events;       /* sorted by time; at one time, enclosing slices first */
    size_t nevents;
};

/* Builds the timeline of r (its per-op records; r->cross's instances and
 * clocks when it has been analysed; os's threads when r has kernel
 * events). Its tracks and events point into r and os: keep both until
 * timeline_free. */
void timeline_build(const struct report *r, const struct os_interference *os,
                    const struct tl_options *o, struct timeline *t);
void timeline_free(struct timeline *t);

#endif
