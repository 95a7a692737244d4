/* Range checks of the records the loaders read (input_limits.h): a record
 * with a field out of range is never handed to the analyses, which index
 * arrays by rank and subtract times. Called by each loader on what it has
 * just read, on the loader's (the only) thread. */
#ifndef NCCLTAP_CLI_REPORT_RECORD_CHECK_H
#define NCCLTAP_CLI_REPORT_RECORD_CHECK_H

#include <stdbool.h>

#include "model.h"

/* Drops from f->events every op event out of range: rank or peer outside
 * its communicator (the size f->comms gives, or REPORT_MAX_NRANKS for a
 * communicator the file does not list), a seq, size or time past the
 * limits, an end before its start, a thread id no Linux gives. Counts
 * them in r->records_rejected and names `path` once on stderr with the
 * first reason. Also drops, without counting them, the events of the
 * file's "(overflow)" communicator: no rank to match them by, and their
 * calls are in its rows. f->events need not be sorted; their order is
 * kept. */
void report_check_events(struct report *r, struct rank_file *f, const char *path);

/* NULL when a hang report's entry is in range (0 <= rank < nranks <=
 * REPORT_MAX_NRANKS, seqs and counts below REPORT_MAX_COUNT), else what
 * is wrong. */
const char *hang_comm_invalid(const struct hang_comm *c);

/* The size the shim writes for its "(overflow)" communicator (origin
 * "overflow", rank -1): the calls of communicators past its bound, or
 * without memory, of many sizes. */
#define COMM_OVERFLOW_NRANKS (-1)

/* Whether c is the shim's "(overflow)" communicator, as it writes it. */
bool comm_entry_is_overflow(const struct comm_entry *c);

/* NULL when a rank file's communicator entry is in range (0 <= rank <
 * nranks <= REPORT_MAX_NRANKS), or is the "(overflow)" communicator; else
 * what is wrong. */
const char *comm_entry_invalid(const struct comm_entry *c);

/* Counts `n` records of `path` rejected and says so once, with `why`
 * (the first record's reason). */
void report_rejected(struct report *r, const char *path, uint64_t n, const char *what, const char *why);

#endif
