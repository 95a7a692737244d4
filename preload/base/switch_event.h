/* The perf event NCCLTAP_OS=switch opens on each followed thread
 * (reducer/os_switch.c), shared with the benchmark that measures what it
 * costs a context switch (tests/perf/os_switch_cost.c), so that the two
 * cannot drift apart: a dummy software event with context_switch=1, whose
 * records carry sample_id (tid, time on CLOCK_MONOTONIC, cpu), user space
 * only, read through a ring of TAP_SWITCH_RING_PAGES data pages plus one
 * page of header. Any thread; a syscall, never on the hot path. */
#ifndef NCCLTAP_SWITCH_EVENT_H
#define NCCLTAP_SWITCH_EVENT_H

#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* Data pages of each thread's ring (a power of two). */
#define TAP_SWITCH_RING_PAGES 16

/* The event's fd on thread `tid` (close-on-exec), or -1 with errno. */
static inline int tap_switch_event_open(pid_t tid)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_DUMMY;
    a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
    a.sample_id_all = 1;
    a.context_switch = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    /* perf_event_paranoid 2 (the default) allows user-space events only. */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

#endif
