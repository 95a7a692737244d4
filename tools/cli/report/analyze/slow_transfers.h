/* Slow transfers and the busbw the user expects: parts of
 * crossrank_analyze (crossrank.c). */
#ifndef NCCLTAP_CLI_REPORT_SLOW_TRANSFERS_H
#define NCCLTAP_CLI_REPORT_SLOW_TRANSFERS_H

#include "crossrank_base.h"

/* The evidence of a SLOW LINK, SLOW or BELOW EXPECTED finding
 * (slow_finding.c fills it from xr_slow, xr_slow_link and xr_suspect): the
 * finding's own figures, beside the culprit and place every finding has
 * (finding.h).
 * What a slow finding stands on. */
enum slow_basis {
    SLOW_INSTANCES,          /* a transfer's instances (xr_slow): `slow` of `instances` below the reference */
    SLOW_PAIR,               /* a pair that stands apart (xr_slow_link of two ranks) */
    SLOW_RANK_PAIRS,         /* a rank all of whose `slow` send/recv pairs are slow against those without it */
    SLOW_RANK_TRANSFERS,     /* a rank whose collective transfers take longer than the other ranks' */
    SLOW_SUSPECT,            /* a rank in every one of the `slow` slow pairs of its communicator, with two
                                peers or more (op, bytes, busbw: the slowest of them) */
};

struct slow_evidence {
    enum slow_basis basis;
    double busbw_gbs;        /* its median busbw */
    double reference_gbs;    /* the job's median for the op and size, other pairs', or the expected */
    bool expected;           /* links: reference_gbs is the expected busbw */
    size_t slow, instances;  /* see enum slow_basis; instances 0 where not counted */
    int nranks;              /* the communicator's size; 0 unknown */
    double transfer_us;      /* SLOW_RANK_TRANSFERS: the rank's transfer time */
    double others_us;        /* ... and the other ranks' median */
};

/* Fills x->slow, x->suspects and x->uncompared* from the measured
 * instances and pairs (and x->expect). */
void xr_find_slow(const struct report *r, struct crossrank *x);

/* Parses NCCLTAP_EXPECT_BUSBW_GBS's value into x->expect; false (and
 * x->expect_error says why, x->nexpect is 0) when it is not one. */
bool xr_parse_expect(struct crossrank *x, const char *spec);

/* The busbw expected for op `name` of `bytes`, 0 if none is. */
double xr_expected_gbs(const struct crossrank *x, const char *name, uint64_t bytes);

#endif
