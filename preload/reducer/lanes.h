/* Work waiting on the GPU, in the order each stream runs it.
 *
 * A unit is what completes together: one op, one group (a part on each
 * stream it used) or one execution of a captured op. Each part holds a
 * start and an end event recorded on its stream around the work: a timed
 * pair, or marks (events without timing, which say when the stream got
 * there only by being polled). A stream runs its work in order, so each
 * stream's parts wait in a lane, and a pass queries only the head of each
 * lane: its start event until that completes, then its end event; the
 * parts behind a pending head are not queried at all. A mark's time is
 * known to lie between the last poll that found it pending and the first
 * that found it complete: the part keeps both.
 *
 * A part may have no events (start NULL): an op of a burst between marks
 * (TAP_OPF_BETWEEN). It is complete once the start of the next part that
 * has events is: it ran between the work before it and that start.
 *
 * Reducer thread only. */
#ifndef NCCLTAP_LANES_H
#define NCCLTAP_LANES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/op_record.h"

struct tap_unit;

struct tap_part {
    struct tap_unit *unit;
    void *stream;
    struct tap_event *start, *end;
    /* Host times (CLOCK_MONOTONIC) bounding when each event completed: after
     * *_lo, by *_hi (0 until seen complete). */
    uint64_t start_lo, start_hi, end_lo, end_hi;
    /* The bounds of the end of the part before it on its stream, as known
     * when its start completed (0: none). */
    uint64_t prev_end_lo, prev_end_hi;
};

struct tap_unit {
    struct tap_op_rec op; /* the op or execution; for a group, its first member */
    void *group;          /* the reducer's group, or NULL */
    uint64_t issued_ns;   /* no event of it was recorded before this */
    uint32_t nparts, left;
    bool failed;          /* an event never completes (its context is gone) */
    struct tap_part parts[];
};

/* A unit of `nparts` parts, each to be filled (stream, start, end) before
 * tap_lanes_add; NULL without memory. Freed with tap_unit_free. */
struct tap_unit *tap_unit_new(uint32_t nparts);
void tap_unit_free(struct tap_unit *u);

/* Queues each part of `u` on its stream's lane. False without memory
 * (nothing queued: the caller settles the unit itself). */
bool tap_lanes_add(struct tap_unit *u);

/* Polls the head of each lane at host time `now`; calls done(u, arg) for
 * each unit whose every part is complete, in each stream's order. The
 * callee owns u. Returns how many units were done. */
unsigned tap_lanes_poll(uint64_t now, void (*done)(struct tap_unit *, void *), void *arg);

/* fn(u, started, arg) for every unit waiting, once each: `started` when
 * the stream got to it (its first part's start event completed). */
void tap_lanes_each(void (*fn)(const struct tap_unit *, bool started, void *), void *arg);

/* Units waiting, and of those the ones with events (the others complete
 * only with a later part that has some). */
unsigned tap_lanes_waiting(void);
unsigned tap_lanes_waiting_marked(void);

/* Takes every unit waiting out of the lanes: fn(u, arg) owns each. */
void tap_lanes_drain(void (*fn)(struct tap_unit *, void *), void *arg);

/* In a forked child: the parent's lanes are forgotten (left to leak). */
void tap_lanes_reset(void);

/* When a part's stamped work ran, from its marks: the stream got to it at
 * about start_ns, it ended at about end_ns; *_span_ns is the width of the
 * interval the polls allow each to lie in, the estimate inside it (the
 * middle, or for a start on a stream known idle when the work was issued,
 * the issue itself). */
struct tap_stamp {
    uint64_t start_ns, end_ns;
    uint64_t start_span_ns, end_span_ns;
    bool start_at_call; /* the start is the issue, the interval's low end (else its middle) */
};
void tap_part_stamp(const struct tap_part *p, uint64_t issued_ns, struct tap_stamp *s);

#endif
