/* Steps the program marks: a program that knows its training steps calls
 * nccltap_step() (exported; from C, or Python through ctypes) as each
 * step begins, and the report splits its collectives at those times
 * instead of finding the steps itself (tools/cli/report/analyze/steps.h).
 *
 * A mark is a CLOCK_MONOTONIC time, the clock of the per-op records'
 * calls. The marks are kept in a ring of the last TAP_STEP_MARKS; the
 * earlier ones are overwritten, and counted (total - kept): none is lost
 * unsaid. Any thread may mark, never blocked: one atomic add and one
 * store, no allocation (the ring is static). The writers read the ring
 * from the reducer thread and at exit; a mark being stored as they read
 * may be seen as 0 and is then left out, as the ring's next write says. */
#ifndef NCCLTAP_STEP_MARKS_H
#define NCCLTAP_STEP_MARKS_H

#include <stddef.h>
#include <stdint.h>

#define TAP_STEP_MARKS 16384

/* Marks a step's start, now: returns how many were marked with it, and
 * sets *now_ns to the mark's time. */
uint64_t tap_step_mark(uint64_t *now_ns);

/* Marks made in all. */
uint64_t tap_step_marks_total(void);

/* Calls fn(t, arg) for each of the last `max` kept marks, oldest first,
 * in increasing times (a mark still being stored, or stored out of order
 * by another thread, left out); returns how many. */
size_t tap_step_marks_each(size_t max, void (*fn)(uint64_t t, void *arg), void *arg);

/* The last whole step marked, ns: the last mark less the one before; 0
 * until two were made (or while one of them is being stored). */
uint64_t tap_step_last_ns(void);

/* In a forked child: the parent's steps are not its own. */
void tap_step_marks_reset(void);

#endif
