#include "lttng_daemon.h"
#include "outdir.h"
#include "capture.h"
#include "paths.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Where a root session daemon puts its sockets: lttng-tools' configure
 * option --with-lttng-system-rundir, /var/run/lttng on every distribution
 * that packages it. The daemon and the client ignore LTTNG_HOME for it. */
#ifndef NCCLTAP_LTTNG_SYSTEM_RUNDIR
#define NCCLTAP_LTTNG_SYSTEM_RUNDIR "/var/run/lttng"
#endif

/* The longest name a non-root daemon creates in $LTTNG_HOME, with margin:
 * ".lttng/sessiond-notification", ".lttng/ustconsumerd64/health". */
#define LONGEST_SOCKET_SUFFIX 40

#define STOP_TIMEOUT_MS 10000

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Creates `path` with the output directory's rules (outdir.h): the daemon
 * (root's, too) keeps its sockets there. Returns 0, or -1 with *error. */
static int make_private_dir(const char *path, char **error)
{
    const char *why;
    int fd = outdir_open(path, &why);
    if (fd < 0) {
        *error = xasprintf("cannot use %s: %s (%s)", path, why, strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

/* A Unix socket path holds at most 107 bytes: a deep output directory
 * would make the daemon fail to start, with an obscure message. */
static char *choose_home(const char *outdir, char **error)
{
    char *home = xasprintf("%s/lttng-home", outdir);
    struct sockaddr_un sa;
    if (getuid() == 0 || strlen(home) + LONGEST_SOCKET_SUFFIX < sizeof sa.sun_path) {
        if (make_private_dir(home, error) == 0)
            return home;
        free(home);
        return NULL;
    }
    free(home);
    const char *tmp = getenv("TMPDIR");
    home = xasprintf("%s/nccltap-lttng-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(home)) {
        *error = xasprintf("cannot create %s: %s", home, strerror(errno));
        free(home);
        return NULL;
    }
    return home;
}

/* Root's daemon and client use the system run directory: in a mount
 * namespace of nccltap's own (inherited by the daemon, the client and the
 * traced command, and by nothing else) a private directory is mounted
 * there, so that this daemon neither meets nor disturbs the machine's. */
static int private_system_rundir(struct lttng_daemon *d, char **error)
{
    char *dir = xasprintf("%s/run", d->home);
    const char *what = "unshare(CLONE_NEWNS)";
    int rc = -1;
    if (unshare(CLONE_NEWNS) != 0)
        goto out;
    what = "making the mounts private";
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        goto out;
    if (make_private_dir(dir, error) != 0) {
        free(dir);
        return -1;
    }
    what = "creating the run directory";
    if (mkdir_p(NCCLTAP_LTTNG_SYSTEM_RUNDIR) != 0)
        goto out;
    what = "mounting " NCCLTAP_LTTNG_SYSTEM_RUNDIR;
    if (mount(dir, NCCLTAP_LTTNG_SYSTEM_RUNDIR, NULL, MS_BIND, NULL) != 0)
        goto out;
    d->mounted = true;
    rc = 0;
out:
    if (rc != 0)
        *error = xasprintf("cannot give root's session daemon a private run directory "
                           "(%s: %s); use --system to trace with the machine's session daemon",
                           what, strerror(errno));
    free(dir);
    return rc;
}

static pid_t read_pidfile(const char *rundir)
{
    char *path = xasprintf("%s/lttng-sessiond.pid", rundir);
    FILE *f = fopen(path, "r");
    free(path);
    long pid = 0;
    if (f) {
        if (fscanf(f, "%ld", &pid) != 1)
            pid = 0;
        fclose(f);
    }
    return (pid_t)pid;
}

int lttng_daemon_start(struct lttng_daemon *d, const char *outdir, bool kernel, char **error)
{
    memset(d, 0, sizeof *d);
    d->home = choose_home(outdir, error);
    if (!d->home)
        return -1;
    bool root = getuid() == 0;
    if (root && private_system_rundir(d, error) != 0) {
        lttng_daemon_stop(d);
        return -1;
    }
    setenv("LTTNG_HOME", d->home, 1);

    /* --daemonize forks: the process nccltap started exits once the daemon
     * is ready, and the daemon would be adopted by init. As a subreaper
     * nccltap adopts it instead, so that it can wait for it to exit at the
     * end rather than leave a zombie in a container whose init reaps none. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    const char *argv[] = { "lttng-sessiond", "--daemonize", kernel ? NULL : "--no-kernel", NULL };
    char *out;
    int status = capture_run(argv, &out);
    if (status != 0) {
        char *said = capture_one_line(out[0] ? out : "it printed nothing");
        if (status < 0)
            *error = xasprintf("%s (Debian/Ubuntu: apt-get install lttng-tools)", said);
        else
            *error = xasprintf("`lttng-sessiond --daemonize` failed (exit status %d): %s",
                               status, said);
        free(said);
        free(out);
        lttng_daemon_stop(d);
        return -1;
    }
    free(out);
    /* --daemonize returns once the daemon accepts commands; its pid is
     * in its run directory. */
    char *rundir = root ? xstrdup(NCCLTAP_LTTNG_SYSTEM_RUNDIR) : xasprintf("%s/.lttng", d->home);
    d->pid = read_pidfile(rundir);
    if (d->pid <= 0)
        msg("warning: no pid in %s/lttng-sessiond.pid: the session daemon will be left "
            "running", rundir);
    free(rundir);
    return 0;
}

/* True once `pid` has exited (reaped when it is nccltap's child). */
static bool gone(pid_t pid)
{
    int status;
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid)
        return true;
    if (w < 0 && errno == ECHILD)
        return kill(pid, 0) != 0 && errno == ESRCH;
    return false;
}

void lttng_daemon_stop(struct lttng_daemon *d)
{
    if (d->pid > 0 && kill(d->pid, SIGTERM) == 0) {
        long waited = 0;
        while (!gone(d->pid) && waited < STOP_TIMEOUT_MS) {
            sleep_ms(10);
            waited += 10;
        }
        if (waited >= STOP_TIMEOUT_MS) {
            msg("the session daemon (pid %d) did not stop in %d s: killing it",
                (int)d->pid, STOP_TIMEOUT_MS / 1000);
            kill(d->pid, SIGKILL);
            for (int i = 0; i < 200 && !gone(d->pid); i++)
                sleep_ms(10);
        }
    }
    d->pid = 0;
    if (d->mounted)
        umount2(NCCLTAP_LTTNG_SYSTEM_RUNDIR, MNT_DETACH);
    d->mounted = false;
    if (d->home)
        remove_tree(d->home);
    free(d->home);
    d->home = NULL;
}
