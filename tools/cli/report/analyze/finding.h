/* A finding and the list of them: the types every kind of finding
 * shares. A finding is a kind, the culprit, the time it cost, where it
 * shows, and its kind's own evidence (a union member, its type declared
 * beside the analysis whose result it holds: stragglers.h, hang_summary.h,
 * slow_transfers.h, os_interference.h, mismatch.h, settings.h, steps.h). The
 * kinds' analyses (*_finding.c) add findings with finding_add(); findings.c
 * runs them and orders the list. Pure data and two helpers, callable on
 * the report's thread. finding.c */
#ifndef NCCLTAP_CLI_REPORT_FINDING_H
#define NCCLTAP_CLI_REPORT_FINDING_H

#include "hang_summary.h"
#include "mismatch.h"
#include "model.h"
#include "os_interference.h"
#include "settings.h"
#include "slow_transfers.h"
#include "steps.h"
#include "stragglers.h"

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
    FINDING_SLOWER,          /* a communicator's steps slower from some step on, and staying so */
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
    SECTION_STEPS,
    SECTION_COUNT            /* how many: a title and a key each in render/findings_render.c */
};

/* One verdict. The fields before `evidence` mean the same for every kind
 * (--json's fields beside "evidence", the page's links, the strip's
 * window read them); `evidence` is the kind's own, its type declared
 * beside the analysis whose result it holds, filled by the kind's
 * analysis (*_finding.c); only its kind's renderers read it
 * (render/finding_<kind>.c). */
struct finding {
    enum finding_kind kind;
    enum finding_section section;
    double cost_us;          /* the time it cost the job (the sort key) */
    /* The culprit. */
    int rank;                /* -1: none (a whole communicator) */
    const struct rank_file *file;  /* its process; NULL: not known */
    int peer;                /* a pair's other rank (a slow link); -1: none, or every pair through `rank` */
    /* Where: its op, or the instance that shows it worst. */
    uint64_t comm;           /* 0: none known */
    const char *op;          /* interned; NULL: several or none */
    uint64_t seq;
    uint64_t replay;         /* that instance's replay of a captured call; 0: a call */
    uint64_t bytes;          /* S of the op; 0: not one op */
    union {
        struct mismatch_evidence mismatch;    /* FINDING_MISMATCH */
        struct hang_evidence hang;            /* FINDING_HANG, FINDING_STALL */
        struct straggler_evidence straggler;  /* FINDING_STRAGGLER */
        struct slow_evidence slow;            /* FINDING_SLOW_LINK, _SLOW_TRANSFER, _BELOW_EXPECTED */
        struct os_evidence os;                /* FINDING_OS */
        struct settings_evidence settings;    /* FINDING_SETTINGS */
        struct slower_evidence slower;        /* FINDING_SLOWER */
    } evidence;
};

struct findings {
    struct finding *v;       /* mismatches first (a hang's likely cause, and wrong results),
                                then hangs (the job stopped), settings that differ (a likely
                                cause of both), then by cost_us */
    size_t n;
    /* What was checked, for the healthy line. */
    bool records;            /* per-op records were matched across ranks */
    bool one_rank_records;   /* per-op records, none of a collective or a send/recv pair
                                (one-sided ops only: nothing to match across ranks) */
    size_t collectives, pairs;  /* instances and send/recv pairs examined */
    size_t compared;         /* instances compared for mismatches (mismatch.h) */
    size_t settings_comms;   /* communicators whose settings were compared (settings.h) */
    struct hang_summary hangs;  /* owned: the hang findings point into it */
};

/* What the kinds' analyses read: the analyses' results. */
struct finding_sources {
    const struct report *r;                /* r->cross as crossrank_analyze left it, r->hangs */
    const struct os_interference *os;      /* os_interference_analyze's; NULL: none */
    const struct mismatches *mm;           /* mismatch_analyze's; NULL: none */
    const struct settings_drift *sd;       /* settings_analyze's; NULL: none */
    const struct steps *steps;             /* steps_analyze's; NULL: none */
};

/* For the kinds' analyses: a new finding of `kind` at the end of f, its
 * culprit and place not known yet (rank and peer -1), evidence zeroed. */
struct finding *finding_add(struct findings *f, enum finding_kind kind, enum finding_section section);
/* The process that holds `rank` of communicator `comm`, NULL if none says. */
const struct rank_file *finding_file_of(const struct report *r, uint64_t comm, int rank);

#endif
