/* The findings: what the analyses found wrong with the run, one entry per
 * culprit, worst first, for the report's first screen (text), its first
 * key (--json), `nccltap report --findings` and anything else that wants a
 * verdict. It reads what the analyses already returned (r->cross: the
 * stragglers and slow transfers; the hang; OS interference) and judges
 * nothing anew: a finding is one of their results, with the culprit, its
 * evidence and the time it cost. Spelling a finding is the renderers'
 * (render/findings_render.c). Called once per report, on its thread. */
#ifndef NCCLTAP_CLI_REPORT_FINDINGS_H
#define NCCLTAP_CLI_REPORT_FINDINGS_H

#include "hang_summary.h"
#include "mismatch.h"
#include "settings.h"
#include "model.h"
#include "os_interference.h"

enum finding_kind {
    FINDING_MISMATCH,        /* ranks issued different collectives at one seq */
    FINDING_HANG,            /* a collective some rank never reached */
    FINDING_STALL,           /* one that stalled past the hang timeout, then completed */
    FINDING_STRAGGLER,       /* a rank last to arrive, the others waiting */
    FINDING_SLOW_LINK,       /* send/recv through one rank, or one pair, slow */
    FINDING_SLOW_TRANSFER,   /* a communicator's collective slow against the job's */
    FINDING_BELOW_EXPECTED,  /* below NCCLTAP_EXPECT_BUSBW_GBS / --expect-busbw */
    FINDING_OS,              /* a rank's threads kept off their CPUs in NCCL calls */
    FINDING_SETTINGS,        /* NCCL settings (environment, config) that differ between ranks */
    FINDING_KINDS            /* how many kinds: a row each in render/finding_kinds.c */
};

/* The report section that holds a finding's evidence. */
enum finding_section {
    SECTION_MISMATCHES,
    SECTION_HANG,
    SECTION_STRAGGLERS,
    SECTION_SLOW_TRANSFERS,
    SECTION_OS_INTERFERENCE,
    SECTION_SETTINGS,
};

struct finding {
    enum finding_kind kind;
    enum finding_section section;
    double cost_us;          /* the time it cost the job (the sort key) */
    int rank;                /* the culprit; -1: none (a whole communicator) */
    const struct rank_file *file;  /* its process; NULL: not known */
    int peer;                /* slow link: the pair's other rank; -1: every pair through `rank` */
    uint64_t comm;           /* OS: its worst op's; 0: none known */
    const char *op;          /* interned; NULL: several or none; OS: its worst op's */
    uint64_t seq;            /* hang: the stuck op; straggler, slow: its worst instance; OS: its worst op */
    uint64_t replay;         /* ... straggler, slow, OS: that instance's replay (0: a call) */
    uint64_t bytes;          /* S of the op */
    int nranks;              /* the communicator's size, 0 unknown */
    /* The evidence. */
    size_t count, of;        /* straggler: last in `count` of `of` instances;
                                slow: `count` of `of` instances (pairs' transfers) slow;
                                slow link through a rank: `count` slow pairs */
    double wait_us;          /* straggler: the others' mean wait each time;
                                hang: the longest wait; os: the others' waiting it explains */
    double share;            /* straggler: the waits it caused over the other ranks' NCCL time;
                                os: the waiting it explains, of the same; 0..1, NaN unknown */
    /* Straggler: its figures are measured over `measured` instances and
     * extrapolated to `calls`; the median gaps before its late collectives
     * and its others (xr_straggler). */
    size_t measured;
    uint64_t calls;
    double gap_late_us, gap_other_us;
    double busbw_gbs;        /* slow: its median busbw */
    double reference_gbs;    /* ... and the job's median for the op and size, or the expected */
    bool expected;           /* slow link: reference_gbs is the expected busbw, not other pairs' */
    bool suspect;            /* slow link at `rank`: in every slow pair of its communicator, with
                                two peers or more (op, bytes, busbw: the slowest of them) */
    double transfer_us;      /* slow link from collectives (busbw 0): the rank's transfer time */
    double others_us;        /* ... and the other ranks' median */
    /* OS: the op that lost most (op, seq, comm above), its thread's time off
     * the CPU in it, of which preempted, and that thread's name. */
    double offcpu_us, preempted_us;
    const char *thread;
    bool nccl_thread;        /* ... one of NCCL's threads, not the caller */
    /* Hang: the ranks waiting in it, and those that never reached it (the
     * first is `rank`), their last op reached in missing[].last_seq. */
    const int *waiting;
    size_t nwaiting;
    const struct hang_missing *missing;
    size_t nmissing;
    bool untimed;            /* hang: no rank waiting in it timed it or an op between (auto's sample) */
    double took_s;           /* stall: from its first start to its end */
    int64_t done_before;     /* hang, untimed: where GPUs stopped before it, the latest op known
                                complete there; -1: none */
    const struct callsite *site;  /* where the op was called; NULL: not known */
    const char *by;          /* os: the task that took the CPU longest; NULL */
    /* Straggler: its threads' loss to the OS (preempted, interrupts) while
     * the others waited for it, before its calls, summed over its late
     * instances (OS rows); and that over the others' wait at those
     * instances. 0 where no OS records explain it. */
    double late_os_us, late_os_share;
    /* Mismatch: the communicator's first mismatched instance (seq, replay,
     * comm, nranks above; rank, file, op, bytes: the first side that
     * differs, sides[1]); `count` its mismatched instances. */
    const struct mismatch *mismatch;
    /* Settings: the communicator's first setting that differs (rank, file:
     * the first rank of its second value); `count` its settings that differ,
     * `of` the other communicators where that variable differs at that
     * process alike (not named again). */
    const struct setting_diff *setting;
    const struct hang_instance *hang;  /* hang, stall: its instance (its calls: a mismatch) */
};

struct findings {
    struct finding *v;       /* mismatches first (a hang's likely cause, and wrong results),
                                then hangs (the job stopped), settings that differ (a likely
                                cause of both), then by cost_us */
    size_t n;
    /* What was checked, for the healthy line. */
    bool records;            /* per-op records were matched across ranks */
    size_t collectives, pairs;  /* instances and send/recv pairs examined */
    size_t compared;         /* instances compared for mismatches (mismatch.h) */
    size_t settings_comms;   /* communicators whose settings were compared (settings.h) */
    struct hang_summary hangs;  /* owned: the hang findings point into it */
};

/* An OS finding needs the waiting that a rank's descheduling before its
 * calls explains to be at least this share of the other ranks' NCCL time:
 * off-CPU time inside its own calls, while its GPU works on, costs nobody
 * (4 ranks on 2 CPUs lose 5% of their NCCL time so and run as fast). */
#define FINDING_OS_MIN_SHARE 0.1
/* A straggler is said to be late because of the OS when its threads were
 * descheduled for at least this share of the others' wait for it: 2
 * simulated ranks on 2 CPUs, with the shim's threads, preempt each other
 * for up to 29% of a healthy straggler's wait; a spinner beside the late
 * rank, 64%. */
#define FINDING_LATE_OS_MIN_SHARE 0.4

/* Fills *out from r (r->cross as crossrank_analyze left it, r->hangs),
 * `os` (os_interference_analyze's, may be empty), `mm` (mismatch_analyze's)
 * and `sd` (settings_analyze's); the findings point into mm and sd. */
void findings_analyze(const struct report *r, const struct os_interference *os, const struct mismatches *mm,
                      const struct settings_drift *sd, struct findings *out);
void findings_free(struct findings *f);

#endif
