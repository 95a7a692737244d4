/* Running the `lttng` client, one command at a time. */
#ifndef NCCLTAP_CLI_LTTNG_CMD_H
#define NCCLTAP_CLI_LTTNG_CMD_H

/* Runs `lttng --no-sessiond ARGS...` (`args` NULL-terminated, without
 * "lttng"), keeping what it prints off the terminal. Returns 0 when it exits 0; otherwise -1,
 * and *error (malloc'ed) quotes the command and what it printed. `output`,
 * when not NULL, gets what it printed (malloc'ed) in either case. */
int lttng_cmd(const char *const args[], char **output, char **error);

#endif
