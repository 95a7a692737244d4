/* Across ranks, from the per-op records (model.h struct op_event): the same
 * collective on every rank of its communicator (an instance: comm, seq),
 * sends matched with their receives, each process's clock aligned with the
 * others', and from those the stragglers and the slow transfers.
 * crossrank.c (matching, clocks) runs the parts in stragglers.c and
 * slow_transfers.c; their types and shared helpers are crossrank_base.h's.
 * Called once per report, on the report's thread. */
#ifndef NCCLTAP_CLI_REPORT_CROSSRANK_H
#define NCCLTAP_CLI_REPORT_CROSSRANK_H

#include "crossrank_base.h"

/* Matches the records of every file of r, estimates the clocks (setting
 * each file's clock_offset_ns), and finds stragglers and slow transfers.
 * A report without per-op records gives an empty result. */
/* expect_busbw: what the user expects ([OP:]GBS[@MINBYTES],...: nccltap
 * report --expect-busbw, or NCCLTAP_EXPECT_BUSBW_GBS), NULL: nothing. */
void crossrank_analyze(struct report *r, const char *expect_busbw, struct crossrank *x);
void crossrank_free(struct crossrank *x);

#endif
