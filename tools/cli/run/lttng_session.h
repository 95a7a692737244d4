/* The LTTng session of one `nccltap run --lttng`: set up before the command
 * starts, stopped and destroyed after it ends. */
#ifndef NCCLTAP_CLI_LTTNG_SESSION_H
#define NCCLTAP_CLI_LTTNG_SESSION_H

#include <stdbool.h>

struct lttng_opts {
    bool enabled;      /* --lttng */
    bool kernel;       /* --kernel: sched, irq and net events too, when possible */
    bool blocking;     /* --blocking: the application waits rather than lose events */
    bool system;       /* --system: the machine's session daemon, not one of our own */
    const char *url;   /* --url: stream to lttng-relayd rather than write OUTDIR/lttng */
};

struct lttng_session;

/* Starts the daemon (unless --system) and a session recording nccltap:*
 * with vpid, vtid and procname, into OUTDIR/lttng or to the URL. Returns
 * NULL after saying why on stderr; whatever was set up is undone. */
struct lttng_session *lttng_session_start(const struct lttng_opts *o, const char *outdir);

/* The environment the traced command needs: NCCLTAP_LTTNG=1 (the shim loads
 * its provider), LTTNG_UST_ALLOW_BLOCKING=1 with --blocking, and
 * liblttng-ust-fork.so in LD_PRELOAD (a process that forks without exec
 * keeps tracing only with it). Call before the shim goes first in
 * LD_PRELOAD, so that the shim stays first. */
void lttng_session_app_env(const struct lttng_session *s);

/* Stops the session (the trace is complete when it returns), destroys it,
 * stops the daemon, says where the trace is, and frees `s`. Returns 0, or
 * -1 when the trace may be incomplete (said on stderr). */
int lttng_session_finish(struct lttng_session *s);

#endif
