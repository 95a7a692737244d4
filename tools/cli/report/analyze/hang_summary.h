/* The Hang section: from the processes' hang reports (model.h struct
 * hang_file), per communicator, the collective it is stuck in, the ranks
 * stuck in it and the ranks that never got there. hang_summary.c */
#ifndef NCCLTAP_CLI_REPORT_HANG_SUMMARY_H
#define NCCLTAP_CLI_REPORT_HANG_SUMMARY_H

#include "model.h"

/* A rank that never reached the stuck collective. */
struct hang_missing {
    int rank;
    int64_t last_seq;        /* the last op it issued (or, issued_stuck, reached); -1: none */
    bool issued_stuck;       /* it issued the stuck op, but its GPU never started it */
};

/* Where the ranks that issued the stuck op called it: one call site of
 * their processes (frames compared as callsites.h does), and those ranks. */
struct hang_site {
    const struct callsite *site;
    int *ranks;              /* ascending */
    size_t nranks;
};

/* What a group of the ranks that issued the stuck op issued, by their hang
 * reports: its op, size, datatype, reduction and root (the last three
 * compared where every rank's report has them). */
struct hang_call {
    const char *op;          /* interned */
    const char *dtype;       /* interned; "" not known */
    uint8_t redop;           /* op_redop_of(); OP_REDOP_UNKNOWN: not known (not compared) */
    int root;                /* -1: none */
    uint64_t bytes;
    int *ranks;              /* ascending */
    size_t nranks;
    /* Its ranks completed it and went on (their per-op records hold it):
     * NCCL paired it with the others' call, which still waits (a
     * mismatch of the same bytes). */
    bool completed;
};

struct hang_instance {
    uint64_t comm, seq;      /* the oldest op any rank reports stuck */
    const char *op;
    uint64_t bytes;
    int nranks;
    double pending_s;        /* the longest any rank had waited */
    int *stuck;              /* ranks that wait in it, ascending: their GPU started it,
                                or they issued it untimed and completed nothing after */
    size_t nstuck;
    size_t nuntimed;         /* of those, the ranks that issued it untimed (auto's sample left it out),
                                or whose GPU stopped before it at ops auto did not time */
    int64_t done_before;     /* those whose GPU stopped before it: the latest op they are known
                                to have completed (the lowest); -1: none */
    struct hang_missing *missing;  /* ascending */
    size_t nmissing;
    int *unknown;            /* ranks nothing tells about (no hang report, no rank file) */
    size_t nunknown;
    struct hang_site *sites; /* where it was called, by the lowest rank of each;
                                none when call sites were off */
    size_t nsites;
    /* It completed later: every rank's per-op records hold it (r->cross),
     * a long stall, not a hang; took_s from the first start to the end. */
    bool resolved;
    double took_s;
    int late_rank;           /* resolved: the rank that started it last, the one waited for */
    /* The calls the ranks that report S pending issued as S, and those
     * that ranks which went past S completed as S (their per-op records,
     * r->cross), the most ranks first (ties: the lowest rank). Two or
     * more: the ranks issued different collectives at S, a mismatch, not a
     * missing rank (NCCL pairs calls by order: with different sizes it
     * waits for bytes that never come; with the same bytes it may
     * complete on some ranks and not others). */
    struct hang_call *calls;
    size_t ncalls;
};

struct hang_summary {
    struct hang_instance *v; /* by comm */
    size_t n;
};

/* The evidence of a HANG or STALL finding (hang_finding.c fills it from a
 * hang_instance): the finding's own figures, beside the culprit and place
 * every finding has (finding.h).
 * The finding's culprit is the first rank that never reached it (a stall:
 * the rank that started it last; a mismatch: the first rank of the call
 * that differs); its place the stuck op. */
struct hang_evidence {
    const struct hang_instance *hang;  /* the ranks waiting, missing, their calls; in findings.hangs */
    double waited_us;        /* hang: the longest wait; stall: from its first start to its end */
    bool untimed;            /* no rank waiting in it timed it or an op between (auto's sample) */
    bool mismatched;         /* every rank reached it with different calls: a mismatch, none missing */
    const struct callsite *site;  /* where the op was called; NULL: not known */
};

/* With r->cross (crossrank_analyze), hangs that completed later are
 * marked resolved. */
void report_hangs(const struct report *r, struct hang_summary *out);
void hang_summary_free(struct hang_summary *s);

#endif
