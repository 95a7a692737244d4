/* `nccltap report`'s options checked against the run they are given with:
 * a value that names nothing in it (an op, a communicator or a rank it
 * does not have, a time past its end) is a mistake, said with what the run
 * has, not an empty table. Called by report_cmd.c once the run is loaded,
 * before the analyses that would use the value. Messages on stderr.
 * check_options.c */
#ifndef NCCLTAP_CLI_REPORT_CHECK_OPTIONS_H
#define NCCLTAP_CLI_REPORT_CHECK_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* What the user chose (NULL / 0: not given). */
struct chosen {
    const char *op;        /* --op, matched without case */
    const char *comm;      /* --comm: an id or a name */
    const int *ranks;      /* --ranks */
    size_t nranks;
};

/* True when every value chosen is in the run; otherwise says the first
 * that is not (after `argv0: `), with what the run has. */
bool report_check_chosen(const char *argv0, const struct report *r, const struct chosen *c);

/* True when --from (from_s) starts within the run's span of ops: the
 * seconds from its first op to its last op's end, in the clock the
 * timeline uses (the processes' offsets estimated: after cross-rank
 * analysis). Otherwise says so, with the span. */
bool report_check_window(const char *argv0, const struct report *r, double from_s);

#endif
