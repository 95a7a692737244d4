/* Running the `lttng` client, one command at a time. */
#ifndef NCCLTAP_CLI_LTTNG_CMD_H
#define NCCLTAP_CLI_LTTNG_CMD_H

/* Runs `lttng --no-sessiond ARGS...` (`args` NULL-terminated, without
 * "lttng"), keeping what it prints off the terminal. Returns 0 when it exits 0; otherwise -1,
 * and *error (malloc'ed) quotes the command and what it printed. `output`,
 * when not NULL, gets what it printed (malloc'ed) in either case. */
int lttng_cmd(const char *const args[], char **output, char **error);

/* Runs the client with LTTNG_HOME=`home` from now on (NULL: the
 * environment's). The client keeps the current session's name in
 * $LTTNG_HOME/.lttngrc, else ~/.lttngrc: nccltap's sessions must not
 * touch the user's. */
void lttng_cmd_set_home(const char *home);

#endif
