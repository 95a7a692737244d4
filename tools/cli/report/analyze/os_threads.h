/* The threads of each rank whose time off the CPU the OS analysis
 * (os_interference.c) measures, and their intervals on and off their
 * CPUs: the threads that called NCCL (the op events' tids) and NCCL's own
 * (named "NCCL..." in a kernel trace's switches, tied to the rank's
 * process by sched_process_fork or LTTng's state dump; by name in a
 * process's own records). Found by sorting, never by walking a list: a
 * run's per-op records may name a hundred thousand threads, a damaged file
 * or trace any number. os_threads.c */
#ifndef NCCLTAP_CLI_REPORT_OS_THREADS_H
#define NCCLTAP_CLI_REPORT_OS_THREADS_H

#include "model.h"

/* An interval a thread spent on or off its CPU. */
struct os_interval {
    uint64_t start_ns, end_ns;
    uint32_t cpu;          /* on: the CPU it ran on; off: the one it left */
    bool preempted;        /* off: runnable, another task had the CPU */
    const char *by;        /* off: the task that took the CPU; NULL when not known (the
                              process's own records do not say) */
};

/* One thread of a rank, and its time on and off the CPU. */
struct os_thread {
    const struct rank_file *file;
    const struct kernel_trace *kernel;
    int32_t tid;           /* > 0: 0 and -1 name no thread (unknown, a record's other side) */
    const char *comm;      /* its name in the kernel trace; never NULL, "" when none names it */
    bool nccl;             /* one of NCCL's threads, not a caller */
    struct os_interval *on, *off;  /* by start, disjoint */
    size_t non, noff;
};

/* Every rank's threads: t[0..n), by file, then tid, one entry each, with
 * their intervals (malloc'ed, as t is: os_interference_free frees them). */
struct os_threads_found {
    struct os_thread *t;
    size_t n;
};
void os_threads_find(const struct report *r, struct os_threads_found *out);


#endif
