/* Sets of time intervals [from, to), as the report's layers cover them:
 * a process's busy time in NCCL (load/), the windows its OS losses are
 * measured over (analyze/). The bottom of report/ beside model.h: calls
 * nothing of the report. No state: callable from any thread. */
#ifndef NCCLTAP_CLI_REPORT_INTERVALS_H
#define NCCLTAP_CLI_REPORT_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

/* iv[0..n) merged in place into the disjoint intervals that cover the
 * same time, in start order, an interval that touches or overlaps the one
 * before joined to it, an empty one ([t, t)) left out; into *covered
 * (unless NULL) the time they cover.
 * Returns how many there are; iv[0..that) holds them. */
size_t intervals_merge(uint64_t (*iv)[2], size_t n, uint64_t *covered);

#endif
