/* The threads that call NCCL, for NCCLTAP_OS (reducer/os_switch.c): each
 * registers itself once, on its first call (entry/thread.c's slow path that
 * first asks for its tid), so that the reducer finds it without looking at
 * every op record. Lock-free: a slot taken with one atomic add, its tid
 * stored after; the reducer reads the slots below the count, a 0 meaning
 * "not stored yet, look again". */
#ifndef NCCLTAP_CALLERS_H
#define NCCLTAP_CALLERS_H

#include <stdint.h>

#define TAP_CALLERS_MAX 64

/* Calling thread, once per thread. Past TAP_CALLERS_MAX, only counted. */
void tap_callers_add(uint32_t tid);

/* Threads registered so far (may exceed TAP_CALLERS_MAX). */
unsigned tap_callers_count(void);

/* The tid in slot i (< TAP_CALLERS_MAX), 0 while it is being stored. */
uint32_t tap_caller_at(unsigned i);

/* In a forked child: its one thread registers again on its next call. */
void tap_callers_reset(void);

#endif
