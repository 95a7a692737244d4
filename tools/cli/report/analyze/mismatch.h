/* Collective mismatches: a collective instance (communicator, seq, replay:
 * crossrank's matching) whose ranks did not all issue the same call: op,
 * datatype, size (S, so the count each passed), reduction or root. NCCL
 * pairs the ranks' calls by their order alone; a rank that calls
 * AllGather where the others call AllReduce corrupts the result (same
 * bytes) or hangs the job (different sizes), and nothing says so.
 *
 * Read from the per-op records (r->cross's instances, each member one
 * rank's record); no record, no verdict: a seq that only one rank
 * recorded is compared with nothing. A reduction is compared only where
 * every member's record has one (per-op file version 4, JSONL "redop").
 *
 * Sends and receives take sequence numbers too, and crossrank's instances
 * skip them: where ranks of a communicator recorded different numbers of
 * sends and receives before a collective, their seqs do not align there,
 * and the instance is not compared (counted in `unaligned`), rather than
 * called a mismatch. So a rank that issues a Send where the others issue
 * a collective is not named.
 *
 * Invariants: sides[0] is the side most ranks issued (ties: the one with
 * the lowest rank); ranks of a side ascending; v by comm, then seq, then
 * replay; at most MISMATCH_KEEP_PER_COMM kept per communicator, all
 * counted in comms[].instances. It prints nothing. mismatch.c */
#ifndef NCCLTAP_CLI_REPORT_MISMATCH_H
#define NCCLTAP_CLI_REPORT_MISMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* What a group of ranks issued at one instance. */
struct mismatch_side {
    const char *op, *dtype;      /* interned */
    uint8_t redop;               /* op_event.redop */
    int root;                    /* root (or peer) rank, -1: none */
    uint64_t bytes;              /* S */
    uint64_t count;              /* the count argument it implies; 0: not known (datatype) */
    int *ranks;                  /* who issued it, ascending */
    size_t nranks;
    const struct rank_file *file;   /* the process of ranks[0] */
    const struct callsite *site;    /* where ranks[0] called it (op_sites.h); NULL: not known */
};

struct mismatch {
    uint64_t comm, seq, replay;  /* replay: 0 a call, N the Nth execution of a captured call */
    int nranks;                  /* the communicator's size, 0 unknown */
    struct mismatch_side *sides; /* nsides >= 2 */
    size_t nsides;
    /* sides[0] was issued by more ranks than any other side: the others
     * are the ones that differ. false (2 ranks, 1 against 1): no telling. */
    bool majority;
};

/* One communicator's mismatches: instances counts them all, v[first ..
 * first + n) are the first few. */
struct mismatch_comm {
    uint64_t comm;
    size_t instances;
    size_t first, n;
};

#define MISMATCH_KEEP_PER_COMM 16

struct mismatches {
    struct mismatch *v;
    size_t n;
    struct mismatch_comm *comms; /* by comm */
    size_t ncomms;
    size_t compared;             /* instances of two ranks or more compared */
    size_t unaligned;            /* instances not compared: send/recv counts differ before them */
};

/* The evidence of a MISMATCH finding (mismatch_finding.c fills it): the
 * finding's own figures, beside the culprit and place every finding has
 * (finding.h).
 * The finding's culprit and op are the first side that differs
 * (sides[1]); its place the communicator's first mismatched instance. */
struct mismatch_evidence {
    const struct mismatch *mismatch;  /* that instance, in the mismatch analysis's result */
    size_t instances;        /* the communicator's mismatched instances */
};

/* Fills *out from r->cross (crossrank_analyze's); empty without it. */
void mismatch_analyze(const struct report *r, struct mismatches *out);
void mismatches_free(struct mismatches *m);

#endif
