#include "lttng_session.h"
#include "outdir.h"
#include "lttng_cmd.h"
#include "lttng_daemon.h"
#include "ust_libs.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHANNEL "nccltap"

/* The kernel events that explain a slow collective: who had the CPU, which
 * interrupts ran, and when packets left and arrived; and which process each
 * thread belongs to (forks, and LTTng's dump of the threads at start), so
 * that NCCL's threads are tied to their rank. */
#define KERNEL_EVENTS \
    "sched_switch,sched_wakeup,irq_handler_entry,irq_handler_exit,net_dev_queue," \
    "netif_receive_skb,sched_process_fork,lttng_statedump_process_state"

struct lttng_session {
    char *name;
    char *trace_dir;       /* OUTDIR/lttng; NULL when streaming */
    const char *url;
    bool blocking;
    bool own_daemon;
    struct lttng_daemon daemon;
    char *client_home;     /* the client's LTTNG_HOME with the machine's daemon */
    bool created, started;
};

/* True when `path` is a directory that holds something. */
static bool dir_has_entries(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return false;
    bool any = false;
    for (struct dirent *e; !any && (e = readdir(d));)
        any = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return any;
}

/* Runs `lttng ARGS...`; on failure says why. */
static int run_lttng(const char *const args[])
{
    char *error;
    if (lttng_cmd(args, NULL, &error) == 0)
        return 0;
    msg("%s", error);
    free(error);
    return -1;
}

/* Kernel events are a bonus: without lttng-modules (most containers and
 * VMs) the user-space trace is still the point, so the run goes on. */
static void enable_kernel(const struct lttng_session *s)
{
    /* Asked first: `lttng enable-event -k` without a kernel tracer dies of
     * SIGPIPE (lttng-tools 2.13) rather than say why. */
    const char *list[] = { "list", "-k", NULL };
    const char *enable[] = { "enable-event", "-k", "-s", s->name, KERNEL_EVENTS, NULL };
    char *out = NULL, *error = NULL;
    const char *why = NULL;
    if (getuid() != 0 && s->own_daemon) {
        why = "it needs root, or --system with a session daemon run by root";
    } else if (lttng_cmd(list, &out, &error) != 0 && strstr(out, "Kernel tracer not available")) {
        why = "lttng-modules not loaded";
    } else {
        free(error);
        error = NULL;
        if (lttng_cmd(enable, NULL, &error) != 0)
            why = error;
    }
    if (why)
        msg("kernel tracing is not available here (%s); tracing user space only", why);
    free(out);
    free(error);
}

static int set_up(struct lttng_session *s, const struct lttng_opts *o)
{
    char *where = s->url ? xasprintf("--set-url=%s", s->url)
                         : xasprintf("--output=%s", s->trace_dir);
    const char *create[] = { "create", s->name, where, NULL };
    int rc = run_lttng(create);
    free(where);
    if (rc != 0)
        return -1;
    s->created = true;

    /* Blocking: a full buffer makes the application wait for the consumer
     * daemon (the command gets LTTNG_UST_ALLOW_BLOCKING=1) rather than
     * discard events. */
    const char *channel[8] = { "enable-channel", "-u", "-s", s->name };
    size_t n = 4;
    if (o->blocking)
        channel[n++] = "--blocking-timeout=inf";
    channel[n++] = CHANNEL;
    channel[n] = NULL;
    const char *events[] = { "enable-event", "-u", "-s", s->name, "-c", CHANNEL,
                             "nccltap:*", NULL };
    const char *context[] = { "add-context", "-u", "-s", s->name, "-c", CHANNEL,
                              "-t", "vpid", "-t", "vtid", "-t", "procname", NULL };
    if (run_lttng(channel) != 0 || run_lttng(events) != 0 || run_lttng(context) != 0)
        return -1;
    if (o->kernel)
        enable_kernel(s);
    const char *start[] = { "start", s->name, NULL };
    if (run_lttng(start) != 0)
        return -1;
    s->started = true;
    return 0;
}

/* With the machine's session daemon (--system), the client runs with an
 * LTTNG_HOME of nccltap's own, so that `lttng create` and `destroy` write
 * and delete the current session's name there and never in the user's
 * ~/.lttngrc (the user's own `lttng stop` would then find no session).
 * Its `.lttng` leads to the user's, where a daemon run by the user has its
 * sockets (root's are in /var/run/lttng, whatever LTTNG_HOME says). */
static char *make_client_home(void)
{
    /* In the temporary directory, not the output directory: the client's
     * socket path under it must fit in 108 bytes. */
    const char *tmp = getenv("TMPDIR");
    char *home = xasprintf("%s/nccltap-lttng-client-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(home)) {
        msg("cannot make %s: %s", home, strerror(errno));
        free(home);
        return NULL;
    }
    const char *user = getenv("LTTNG_HOME");
    if (!user || !*user)
        user = getenv("HOME");
    if (user && *user) {
        char *link = xasprintf("%s/.lttng", home);
        char *target = xasprintf("%s/.lttng", user);
        if (symlink(target, link) != 0)
            msg("cannot make %s: %s", link, strerror(errno));
        free(target);
        free(link);
    }
    return home;
}

static void remove_client_home(char *home)
{
    const char *const names[] = { ".lttng", ".lttngrc" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *path = xasprintf("%s/%s", home, names[i]);
        unlink(path);
        free(path);
    }
    rmdir(home);
    free(home);
}

static void session_free(struct lttng_session *s)
{
    lttng_cmd_set_home(NULL);
    if (s->client_home)
        remove_client_home(s->client_home);
    free(s->name);
    free(s->trace_dir);
    free(s);
}

/* Destroys what exists of the session and stops the daemon; returns -1
 * when a step failed. */
static int tear_down(struct lttng_session *s)
{
    int rc = 0;
    if (s->created) {
        /* stop returns once the consumer daemon has written everything. */
        const char *stop[] = { "stop", s->name, NULL };
        const char *destroy[] = { "destroy", s->name, NULL };
        if (s->started && run_lttng(stop) != 0)
            rc = -1;
        if (run_lttng(destroy) != 0)
            rc = -1;
    }
    if (s->own_daemon)
        lttng_daemon_stop(&s->daemon);
    return rc;
}

struct lttng_session *lttng_session_start(const struct lttng_opts *o, const char *outdir)
{
    struct lttng_session *s = xcalloc(1, sizeof *s);
    s->name = xasprintf("nccltap-%d", (int)getpid());
    s->url = o->url;
    s->blocking = o->blocking;
    if (!s->url) {
        s->trace_dir = xasprintf("%s/lttng", outdir);
        /* Made here, with the output directory's rules, so that the
         * session daemon writes only into a directory that is ours. */
        const char *why;
        int fd = outdir_open(s->trace_dir, &why);
        if (fd < 0) {
            msg("cannot use %s for the trace: %s (%s)", s->trace_dir, why, strerror(errno));
            session_free(s);
            return NULL;
        }
        close(fd);
        /* An earlier trace there would be mixed with this one. */
        if (dir_has_entries(s->trace_dir)) {
            msg("%s already holds a trace: choose another --dir, or remove it", s->trace_dir);
            session_free(s);
            return NULL;
        }
    }
    if (!o->system) {
        char *error;
        if (lttng_daemon_start(&s->daemon, outdir, o->kernel, &error) != 0) {
            msg("cannot start a session daemon: %s", error);
            free(error);
            session_free(s);
            return NULL;
        }
        s->own_daemon = true;
    } else {
        s->client_home = make_client_home();
        if (!s->client_home) {
            session_free(s);
            return NULL;
        }
        lttng_cmd_set_home(s->client_home);
    }
    if (set_up(s, o) != 0) {
        msg("cannot set up the LTTng session %s%s: the command was not run", s->name,
            o->system ? " with the machine's session daemon (is one running? "
                        "`lttng-sessiond --daemonize` starts one)" : "");
        tear_down(s);
        session_free(s);
        return NULL;
    }
    return s;
}

void lttng_session_app_env(const struct lttng_session *s)
{
    setenv("NCCLTAP_LTTNG", "1", 1);
    if (s->blocking)
        setenv("LTTNG_UST_ALLOW_BLOCKING", "1", 1);
    /* liblttng-ust-fork.so: processes forked without exec stay traced.
     * liblttng-ust-fd.so: a launcher that closes the descriptors it did not
     * open (Open MPI's mpirun and orted, before running a rank) would close
     * lttng-ust's too, and lttng-ust aborts on its fd-tracker assertion. */
    static const struct {
        const char *name, *without;
    } helpers[] = {
        { "liblttng-ust-fork.so", "processes that fork without exec will not be traced" },
        { "liblttng-ust-fd.so", "a launcher that closes descriptors it did not open "
                                "(Open MPI's mpirun) may make lttng-ust abort" },
    };
    for (size_t i = 0; i < sizeof helpers / sizeof helpers[0]; i++) {
        char *lib = ust_library(helpers[i].name);
        if (lib)
            env_prepend("LD_PRELOAD", lib);
        else
            msg("%s not found: %s", helpers[i].name, helpers[i].without);
        free(lib);
    }
}

int lttng_session_finish(struct lttng_session *s)
{
    int rc = tear_down(s);
    if (rc != 0)
        msg("the trace of session %s may be incomplete", s->name);
    if (s->url)
        msg("trace streamed to %s (session %s)", s->url, s->name);
    else if (dir_has_entries(s->trace_dir))
        msg("trace in %s", s->trace_dir);
    else
        msg("no trace in %s: no traced process ran (LTTng writes nothing then)", s->trace_dir);
    session_free(s);
    return rc;
}
