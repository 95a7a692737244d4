/* A session daemon of nccltap's own, for one `nccltap run --lttng`: the
 * run's sessions, events and failures stay apart from any other tracing on
 * the machine (and from other runs, such as tests running side by side). */
#ifndef NCCLTAP_CLI_LTTNG_DAEMON_H
#define NCCLTAP_CLI_LTTNG_DAEMON_H

#include <stdbool.h>
#include <sys/types.h>

struct lttng_daemon {
    pid_t pid;            /* 0 when none runs */
    char *home;           /* its LTTNG_HOME */
    bool mounted;         /* root: its run directory is bind-mounted */
};

/* Starts `lttng-sessiond --daemonize` with LTTNG_HOME = OUTDIR/lttng-home
 * (a directory under $TMPDIR when that path is too long for the daemon's
 * sockets), and sets LTTNG_HOME in nccltap's environment so that the lttng
 * client and the traced command find it. As root, the daemon's sockets are
 * in a fixed directory (/var/run/lttng) whatever LTTNG_HOME says: nccltap
 * then moves into a mount namespace of its own and mounts a private
 * directory there. `kernel`: let the daemon load the kernel tracer.
 * Returns 0, or -1 with *error (malloc'ed). */
int lttng_daemon_start(struct lttng_daemon *d, const char *outdir, bool kernel, char **error);

/* Stops the daemon and waits for it (SIGTERM; SIGKILL after 10 s), then
 * removes its LTTNG_HOME. Nothing when none was started. */
void lttng_daemon_stop(struct lttng_daemon *d);

#endif
