/* One-sided operations (NCCL 2.29's ncclPutSignal, ncclSignal and
 * ncclWaitSignal): what each rank put to whom, and how long each rank's
 * waits for its peers' signals waited, from the per-op records (each
 * records its peer: a put's and a signal's target, the rank a wait's
 * descriptors name, -1 for several). They are one rank's calls, matched
 * across ranks by no seq: a wait's time is the time until the signals it
 * needs arrived. Reads the document; called once per report, on its
 * thread. onesided.c */
#ifndef NCCLTAP_CLI_REPORT_ONESIDED_H
#define NCCLTAP_CLI_REPORT_ONESIDED_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Puts and signals from src to dst on comm. */
struct onesided_flow {
    uint64_t comm;
    int src, dst;
    uint64_t puts, bytes, signals;
};

/* A rank's waits on comm for `peer`'s signals (-1: several peers at once). */
struct onesided_wait {
    uint64_t comm;
    int rank, peer;
    uint64_t waits;
    double total_us, max_us;  /* over the waits recorded, each its interval */
};

struct onesided {
    struct onesided_flow *flows;  /* by comm, src, dst */
    size_t nflows;
    struct onesided_wait *waits;  /* by comm, rank, peer */
    size_t nwaits;
};

void onesided_analyze(const struct report *r, struct onesided *out);
void onesided_free(struct onesided *o);

#endif
