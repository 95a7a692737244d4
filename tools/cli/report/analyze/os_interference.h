/* OS interference: what the kernel did to each rank's threads while its
 * NCCL ops ran and, when it was the last to arrive at a collective
 * (analyze/crossrank.c, r->cross), while the others waited for it; from
 * the kernel events of a trace (model.h, struct kernel_trace). A rank's
 * threads are the ones that called NCCL and NCCL's own (os_threads.h).
 * The same analysis reads a process's own context-switch records from its
 * rank file (the shim's NCCLTAP_OS=switch, load/os_records.c) where its
 * host has no kernel trace: no interrupts and no "preempted by" then.
 * os_interference.c */
#ifndef NCCLTAP_CLI_REPORT_OS_INTERFERENCE_H
#define NCCLTAP_CLI_REPORT_OS_INTERFERENCE_H

#include "model.h"
#include "os_threads.h"

/* An op makes a row when its threads lost at least this much CPU time they
 * wanted (preempted) or to interrupts: less is the noise of any machine. */
#define OS_ROW_MIN_NS 20000

/* The threads of one process each op is measured against: past this (no
 * process has so many calling and NCCL threads; the shim follows 64), a
 * damaged file or trace, whose threads preempted longest are kept and the
 * others counted in os_sources.unfollowed. It bounds an op's cost. */
#define OS_MAX_THREADS 1024

/* What one op (a group: its first op) lost to the OS. */
struct os_row {
    const struct rank_file *file;
    const struct op_event *op;
    uint64_t from_ns, to_ns;       /* the window looked at: the call to the GPU's end,
                                      from the first rank's start for a straggler */
    bool straggler;                /* the last to start the collective (crossrank) */
    uint64_t wait_ns;              /* ... and how long the first one waited for it */
    uint64_t late_lost_ns;         /* ... and its threads' loss (preempted, interrupts) in that
                                      wait, before its call: what made it late */
    uint64_t others_waited_ns;     /* ... and the other ranks' waits for it there, summed */
    bool first_of_kind;            /* its process's first op of its (comm, op, size): NCCL sets
                                      up connections there, seconds off CPU on GPUs */
    uint64_t offcpu_ns;            /* its threads' time off the CPU in it, summed */
    uint64_t preempted_ns;         /* ... of which runnable, another task running */
    uint64_t waiting_ns;           /* ... of which waiting for something (sleeping) */
    const char *preempted_by;      /* the task that ran longest instead; NULL if none */
    uint64_t irq_ns;               /* interrupt handlers on the CPUs the threads ran on */
    const char *irq_name;          /* the handler that took longest; NULL if none */
    int irq;
    const struct os_thread *thread;  /* the thread that lost most */
};

/* What one process lost over all its ops: the union of their windows, so
 * that ops in flight together (queued on a stream) do not count one
 * descheduling twice. */
struct os_proc {
    const struct rank_file *file;
    uint64_t offcpu_ns, preempted_ns, irq_ns;
    /* The others' waiting its loss explains: at each collective it was
     * last at (its first of each kind left out), the others' waits times
     * the share of its lateness that its threads lost before the call. */
    uint64_t explained_ns;
};

/* Where the report's OS view comes from, and what is missing from it. */
struct os_sources {
    size_t kernel_hosts;   /* hosts with an LTTng kernel trace */
    size_t shim_files;     /* processes read from their own records (NCCLTAP_OS) */
    size_t shim_unused;    /* processes whose own records were left for their host's kernel trace */
    size_t refused;        /* processes whose perf_event_open was refused ... */
    const char *note;      /* ... and why (one of them) */
    size_t off;            /* processes with NCCLTAP_OS=off */
    uint64_t lost, dropped;  /* the shim's records lost (ring overruns), dropped (bound) */
    uint64_t unfollowed;     /* threads the shim could not follow, and those past
                                OS_MAX_THREADS of a process */
};

struct os_interference {
    struct os_sources sources;     /* filled whatever else is empty */
    struct os_thread *threads;     /* by file, then tid */
    size_t nthreads;
    struct os_proc *procs;         /* by file, those with threads followed */
    size_t nprocs;
    struct os_row *rows;           /* the ops most affected first */
    size_t nrows;
};

/* The evidence of an OS finding (os_finding.c fills it from os_proc and
 * its rows): the finding's own figures, beside the culprit and place every
 * finding has (finding.h).
 * The finding's place is the op whose threads lost most (op, seq,
 * replay, comm); its cost the waiting it explains. */
struct os_evidence {
    double explained_us;     /* the others' waiting its descheduling before its calls explains */
    double share;            /* that, of the others' NCCL time; 0..1 */
    const char *preempted_by;  /* the task that took the CPU longest; NULL: not known */
    double offcpu_us, preempted_us;  /* its worst op's thread: time off the CPU, of which preempted */
    const char *thread;      /* that thread's name; NULL: not known */
    bool nccl_thread;        /* ... one of NCCL's threads, not the caller */
};

/* Fills *out: its sources always, the rest only when a kernel trace or a
 * process's own records give a view (sources.kernel_hosts or shim_files).
 * With r->cross (crossrank_analyze), stragglers' rows cover their wait. */
void os_interference_analyze(const struct report *r, struct os_interference *out);
void os_interference_free(struct os_interference *o);

#endif
