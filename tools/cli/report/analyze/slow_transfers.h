/* Slow transfers and the busbw the user expects: parts of
 * crossrank_analyze (crossrank.c). */
#ifndef NCCLTAP_CLI_REPORT_SLOW_TRANSFERS_H
#define NCCLTAP_CLI_REPORT_SLOW_TRANSFERS_H

#include "crossrank_base.h"

/* Fills x->slow, x->suspects and x->uncompared* from the measured
 * instances and pairs (and x->expect). */
void xr_find_slow(const struct report *r, struct crossrank *x);

/* Parses NCCLTAP_EXPECT_BUSBW_GBS's value into x->expect; false (and
 * x->expect_error says why, x->nexpect is 0) when it is not one. */
bool xr_parse_expect(struct crossrank *x, const char *spec);

/* The busbw expected for op `name` of `bytes`, 0 if none is. */
double xr_expected_gbs(const struct crossrank *x, const char *name, uint64_t bytes);

#endif
