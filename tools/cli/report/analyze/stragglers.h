/* Stragglers and each rank's wait at its communicators' collectives: a
 * part of crossrank_analyze (crossrank.c), run once the instances are
 * matched and measured in the aligned clock. */
#ifndef NCCLTAP_CLI_REPORT_STRAGGLERS_H
#define NCCLTAP_CLI_REPORT_STRAGGLERS_H

#include "crossrank_base.h"

/* Fills x->stragglers and x->waits from x->instances, with
 * x->threshold_ns set. */
void xr_find_stragglers(const struct report *r, struct crossrank *x);

#endif
