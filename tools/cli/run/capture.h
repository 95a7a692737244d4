/* Running a helper program (lttng, lttng-sessiond) to completion and
 * keeping what it printed, so that nccltap can say why it failed. */
#ifndef NCCLTAP_CLI_CAPTURE_H
#define NCCLTAP_CLI_CAPTURE_H

/* Runs argv (searched in PATH) with stdin from /dev/null and stdout and
 * stderr together into *output (malloc'ed, trailing blank lines removed;
 * "" when it printed nothing). Returns its exit status, 128+N when signal
 * N killed it, or -1 when it could not be started (*output then says why). */
int capture_run(const char *const argv[], char **output);

/* `s` on one line ("Error: a\nError: b" -> "Error: a; Error: b"), for
 * messages. Malloc'ed. */
char *capture_one_line(const char *s);

#endif
