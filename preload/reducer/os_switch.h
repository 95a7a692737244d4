/* NCCLTAP_OS=switch: the context switches of the threads that matter, from
 * the kernel, unprivileged. Each thread that calls NCCL (registered on its
 * first call: state/callers.h) and each of NCCL's own threads (named
 * "NCCL..." in /proc/self/task/<tid>/comm) gets a perf_event_open dummy
 * software event with context_switch=1 on CLOCK_MONOTONIC and a small
 * mmap'ed ring (base/switch_event.h); the reducer reads the rings and keeps
 * each time a thread was off its CPU (struct tap_os_off), bounded.
 * perf_event_open refused (paranoid 3, seccomp, no syscall): one line says
 * so, nothing else changes.
 * Reducer thread only: the hot path never touches any of it. */
#ifndef NCCLTAP_OS_SWITCH_H
#define NCCLTAP_OS_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "writers/snapshot.h"

/* Threads followed at most, and intervals kept (the oldest dropped, counted). */
#define TAP_OS_MAX_THREADS 64
#define TAP_OS_MAX_OFF 16384

/* Follows the threads that called NCCL since the last poll (they register
 * themselves: state/callers.h) and reads every ring: a load per thread when
 * nothing happened. Each reducer pass. */
void tap_os_poll(void);

/* With the time (CLOCK_MONOTONIC ns) after a pass: looks for NCCL's threads
 * (named "NCCL...") soon after a communicator is made, and every 10 s, and
 * lets go of threads that exited. */
void tap_os_tend(uint64_t now);

/* Whether the last poll found a ring over a quarter full: the reducer must
 * not nap long (runtime.c), or the next records overrun it. */
bool tap_os_busy(void);

/* What the writers print; valid until the next poll. */
const struct tap_os_view *tap_os_view(void);

/* In a forked child: the parent's events are not the child's threads'. */
void tap_os_reset(void);

#endif
