/* Stragglers and each rank's wait at its communicators' collectives: a
 * part of crossrank_analyze (crossrank.c), run once the instances are
 * matched and measured in the aligned clock. */
#ifndef NCCLTAP_CLI_REPORT_STRAGGLERS_H
#define NCCLTAP_CLI_REPORT_STRAGGLERS_H

#include "crossrank_base.h"

/* The evidence of a STRAGGLER finding (straggler_finding.c fills it from
 * xr_straggler): the finding's own figures, beside the culprit and place
 * every finding has (finding.h).
 * The finding's place is its worst instance (seq, replay); its cost the
 * others' wait for it at its communicator's collectives. */
struct comm_steps;

struct straggler_evidence {
    size_t last, told;       /* last in `last` of `told` instances */
    double wait_us_mean;     /* the others' mean wait each time */
    double share;            /* the waits it caused over the other ranks' NCCL time; 0..1, NaN unknown */
    /* Measured over `measured` instances, extrapolated to `calls`. */
    size_t measured;
    uint64_t calls;
    double gap_late_us, gap_other_us;  /* the median gaps before its late collectives and its others */
    /* Its threads' loss to the OS (preempted, interrupts) before its calls
     * while the others waited, summed over its late instances; and that
     * over the others' wait at those instances. 0 where no OS records
     * explain it (FINDING_LATE_OS_MIN_SHARE). */
    double late_os_us, late_os_share;
    /* Its communicator's steps (steps.h) where it is their usual late rank
     * (comm_steps.late): where in the step it is late; NULL otherwise. */
    const struct comm_steps *steps;
};

/* Fills x->stragglers and x->waits from x->instances, with
 * x->threshold_ns set. */
void xr_find_stragglers(const struct report *r, struct crossrank *x);

#endif
