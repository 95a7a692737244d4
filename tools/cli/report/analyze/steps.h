/* Steps: a training job repeats one pattern of collectives per step (DDP's
 * bucket all-reduces, FSDP's all-gathers and reduce-scatters). Found per
 * communicator from its collectives alone, with no help from the program:
 * - the pattern: the shortest period P0 at which the (op, size) sequence
 *   repeats (TAP_STEP_MIN_MATCH of it: stats/step_pattern.h);
 * - the step: the host's time between two calls is longest where a step
 *   begins (forward, data loading, the optimizer are not NCCL's), so the
 *   step is the shortest multiple q of P0 at which the calls after the
 *   longest 1/q of the gaps come every q calls (TAP_STEP_MIN_REGULAR of
 *   them: a rank descheduled now and then makes a few gaps long) with
 *   gaps that stand out (TAP_STEP_MIN_BREAK times the others'); where no gap
 *   stands out, a pattern of 2 or more collectives is the step, starting
 *   after its longest gap on average; one collective repeated is no step
 *   (nccl-tests' loop, or a step of one collective: nothing to tell them
 *   apart by).
 * A program that marks its steps (nccltap_step(), include/nccltap.h)
 * has them at its marks instead: the collectives its lowest marking rank
 * called between two marks, where most marked steps hold as many (a
 * multiple of P0); else they are found as above.
 * Per step: its collectives' time, what of it was waiting for the last
 * rank and what transfer, and the rank that made the others wait most.
 * Over the steps: the step from which the transfer time (or the waiting)
 * rose and stayed up (a change point), and the collective of the step
 * that rose most. Reads the cross-rank instances (crossrank.h); called
 * once per report, on its thread. steps.c */
#ifndef NCCLTAP_CLI_REPORT_STEPS_H
#define NCCLTAP_CLI_REPORT_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crossrank_base.h"
#include "model.h"

#define STEPS_MAX_PERIOD 4096     /* collectives a step, at most */
#define STEPS_MIN_STEPS 8         /* fewer: no steps (nothing to compare) */

/* One collective of the step's pattern. */
struct step_position {
    uint8_t op;                   /* report_name(r, op) */
    uint64_t bytes;
    /* Its transfer time (end minus the last start), us, median over the
     * steps before and after the change point (all steps: before). */
    double transfer_before_us, transfer_after_us;
    double busbw_before_gbs, busbw_after_gbs;  /* S x bus factor over those; 0 unknown */
    /* The profiler tag its calls carry in every step (NCCL 2.31's
     * userProfilerTag, a phase the program names); 0 none, or not the
     * same in every step. */
    uint64_t tag;
};

/* One step. Times in us: each the time its collectives cover together
 * within the step (steps.c, spans_to_step), not their sum. */
struct step {
    uint64_t first_seq;           /* its first collective */
    int64_t start_ns;             /* that collective's earliest start (reference clock) */
    double step_us;               /* to the next step's start; 0 for the last */
    double comm_us;               /* the ranks' mean time in its collectives */
    double wait_us;               /* of that, waiting for the last to arrive */
    double transfer_us;           /* end minus the last arrival */
    double transfer_sum_us;       /* the collectives' transfers summed: past the step, the polls show */
    bool timed;                   /* every rank timed every collective of it (else stamps: their
                                     figures lean on the polls' resolution, not to be compared
                                     with timed steps') */
    int late_rank;                /* the rank that made the others wait most; -1 none told */
    double late_us;               /* the others' mean wait it caused in the step */
    size_t late_pos;              /* where it was late most (0: the first collective) */
    size_t missing;               /* positions no rank or not every rank recorded */
};

/* A change point: from step `from` on, the series' mean rose from
 * `before` to `after` (us a step) and stayed there. Only steps measured
 * alike are compared, as most were (comm_steps.timed): auto times a
 * class's first calls, then stamps. */
struct step_change {
    bool found;
    size_t from;                  /* index into steps */
    double before_us, after_us;   /* medians of the two runs of steps */
    double t;                     /* the split's t statistic */
    size_t pos;                   /* the position that rose most (transfer) */
};

/* A rank late at one position of most steps. */
struct step_late {
    int rank;                     /* -1: none */
    size_t pos;
    size_t steps;                 /* steps it was the late rank of, at pos */
    double wait_us_median;        /* the others' mean wait it caused there, median */
    size_t from;                  /* the first step of the run (0, or the wait's change point) */
};

struct comm_steps {
    uint64_t comm;
    int nranks;
    size_t period;                /* collectives a step */
    size_t pattern;               /* P0: the (op, size) pattern's period */
    bool by_marks;                /* at the program's nccltap_step() marks (rank_file.step_marks) */
    /* With marks: the program's steps, the marks followed by a collective
     * of the communicator before the next (the last mark's step too), and
     * the marks the rank file did not keep. The steps below are the runs
     * of `period` collectives alike; DDP's first is not (above). */
    size_t marked;
    bool by_gap;                  /* steps start after a gap that stands out */
    /* Most steps timed (else stamped): the medians, changes and positions'
     * figures are over the steps measured so. */
    bool timed;
    double stamp_span_us;         /* a stamped end's span, median, us (0: none stamped) */
    uint64_t first_seq;           /* the first step's first collective */
    /* The communicator's collectives outside the whole steps: before the
     * first (set-up; a first step unlike the rest, as DDP's, whose first
     * backward all-reduces the whole model at once), after the last (a
     * step cut short, a final barrier). A user counting the loop's
     * iterations finds them here. */
    size_t before, after;
    struct step_position *positions;  /* period of them */
    struct step *steps;
    size_t nsteps;
    double step_us_median, comm_us_median, wait_us_median, transfer_us_median;
    struct step_change slower;    /* of transfer_us */
    struct step_change waiting;   /* of wait_us */
    struct step_late late;
};

/* A SLOWER finding's evidence (analyze/slower_finding.c): a change point
 * of a communicator's steps, in their transfer (bandwidth lost: the
 * finding's op is the collective that rose most) or in their waiting
 * (the finding's rank is the one late since, where one is). */
enum slower_basis { SLOWER_TRANSFER, SLOWER_WAITING };
struct slower_evidence {
    enum slower_basis basis;
    const struct comm_steps *steps;  /* the communicator's (the report's summary owns it) */
};

struct steps {
    struct comm_steps *comms;     /* by communicator id */
    size_t ncomms;
    size_t without;               /* communicators with collectives but no steps */
};

/* Finds the steps of every communicator of x (its clocks aligned). */
void steps_analyze(const struct report *r, const struct crossrank *x, struct steps *out);
void steps_free(struct steps *s);

#endif
