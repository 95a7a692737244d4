/* trace_read(): libbabeltrace2 reads the traces in a child process and
 * hands each event back through a pipe (trace_wire.h). A trace is anyone's
 * file, and libbabeltrace2 2.0 aborts on an assertion for some damaged
 * packet headers (8 crafted bytes do it): validating the CTF ourselves
 * would mean a second CTF decoder, always one assertion behind. In a child
 * an abort or a crash ends the child, and the report says which trace and
 * goes on (trace_load.c). The parent never calls libbabeltrace2. */
#include "trace_events.h"
#include "trace_wire.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void send_event(const struct tev *e, void *out)
{
    if (!wire_put_event(out, e))
        _exit(1);  /* the report is gone */
}

/* The child: reads, sends, ends. Never returns. */
static void child(int fd, char *const *dirs, size_t n)
{
    /* A crash ends it with its own signal, whatever handlers the report
     * had (a fuzzer's): the parent names the signal. */
    static const int crashes[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGALRM };
    for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++)
        signal(crashes[i], SIG_DFL);
    alarm(TRACE_READ_IDLE_S);  /* a reader that never ends is ended (trace_events.h) */
    FILE *out = fdopen(fd, "w");
    if (!out)
        _exit(1);
    struct trace_stats stats;
    char *error = NULL;
    int rc = trace_read_in_process(dirs, n, send_event, out, &stats, &error);
    bool sent = wire_put_end(out, rc, &stats, error) && fflush(out) == 0;
    _exit(sent ? 0 : 1);  /* no atexit handler of the report's in the child */
}

/* Reads whole records from the child until it ends; false when one is not
 * a record it could have written. *ended when its result came. */
static bool receive(FILE *in, tev_fn fn, void *data, struct trace_stats *stats, int *rc, char **error,
                    bool *ended)
{
    struct wire_event w = { 0 };
    uint8_t *buf = NULL;
    size_t cap = 0;
    bool ok = true;
    struct wire_head h;
    while (ok && !*ended && fread(&h, sizeof h, 1, in) == 1) {
        if (h.len > WIRE_MAX_LEN) {
            ok = false;
            break;
        }
        if (cap < h.len)
            buf = xrealloc(buf, cap = h.len);
        if (h.len && fread(buf, h.len, 1, in) != 1)
            break;  /* the child died mid-record: its status says how */
        if (h.kind == WIRE_EVENT && (ok = wire_get_event(buf, h.len, &w)))
            fn(&w.e, data);
        else if (h.kind == WIRE_END)
            ok = *ended = wire_get_end(buf, h.len, rc, stats, error);
        else
            ok = false;
    }
    free(buf);
    wire_event_free(&w);
    return ok;
}

/* "DIR", or "DIR and N more". Malloc'ed. */
static char *traces_named(char *const *dirs, size_t n)
{
    return n == 1 ? xstrdup(dirs[0]) : xasprintf("%s and %zu more", dirs[0], n - 1);
}

int trace_read(char *const *dirs, size_t n, tev_fn fn, void *data, struct trace_stats *stats, char **error)
{
    memset(stats, 0, sizeof *stats);
    *error = NULL;
    int fds[2];
    if (pipe(fds) != 0) {
        *error = xasprintf("cannot start the trace reader: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);  /* what the report buffered is not written twice */
    pid_t pid = fork();
    if (pid < 0) {
        *error = xasprintf("cannot start the trace reader: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], dirs, n);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    int rc = -1;
    bool ended = false, ok = in && receive(in, fn, data, stats, &rc, error, &ended);
    if (!ok)
        kill(pid, SIGKILL);  /* it sent what it could not have: nothing more of it is read */
    if (in)
        fclose(in);
    else
        close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (ok && ended && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return rc;
    free(*error);
    char *traces = traces_named(dirs, n);
    if (!ok)
        *error = xasprintf("the reader of the trace in %s sent what no reader writes: it is not trusted", traces);
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        *error = xasprintf("libbabeltrace2 read nothing for %d s in the trace in %s: its reader was ended",
                           TRACE_READ_IDLE_S, traces);
    else if (WIFSIGNALED(status))
        *error = xasprintf("libbabeltrace2 died of signal %d (%s) reading the trace in %s", WTERMSIG(status),
                           strsignal(WTERMSIG(status)), traces);
    else
        *error = xasprintf("the reader of the trace in %s ended without its result (exit status %d)", traces,
                           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    free(traces);
    return TRACE_READ_DIED;
}
