#include "launch.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "base/monotonic.h"
#include "fail.h"
#include "rank.h"
#include "rdv.h"

/* After a failure or a signal, children still alive this long after
 * SIGTERM get SIGKILL. */
#define KILL_AFTER_NS (5 * 1000000000ull)

/* Read by the signal handler: 0 once a child is reaped. */
static volatile pid_t children[BENCH_MAX_FORK_RANKS];
static volatile int nchildren;
static volatile sig_atomic_t forwarded;

static void kill_children(int sig)
{
    for (int i = 0; i < nchildren; i++)
        if (children[i] > 0)
            kill(children[i], sig);
}

static void forward(int sig)
{
    forwarded = sig;
    kill_children(sig);
}

static void say_how_it_ended(int rank, int status)
{
    if (WIFEXITED(status))
        bench_note("rank %d exited with status %d", rank, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        bench_note("rank %d was killed by signal %d (%s)", rank, WTERMSIG(status),
                   strsignal(WTERMSIG(status)));
}

static int child_index(pid_t pid)
{
    for (int i = 0; i < nchildren; i++)
        if (children[i] == pid)
            return i;
    return -1;
}

/* Waits for every child. When one fails (or a signal came) the others are
 * told to stop with SIGTERM, and killed if they still run 5 s later: a rank
 * whose peer is gone would wait in NCCL or a barrier forever. */
static int supervise(void)
{
    int remaining = nchildren;
    int rc = 0;
    bool wrong = false;     /* a rank ended with BENCH_EXIT_WRONG: it did finish */
    bool stopping = false, killed = false;
    uint64_t deadline = 0;     /* tap_monotonic_ns: SIGKILL after it */
    while (remaining > 0) {
        if (forwarded && !stopping) {
            stopping = true;
            deadline = tap_monotonic_ns() + KILL_AFTER_NS;
        }
        int status;
        pid_t pid = waitpid(-1, &status, stopping ? WNOHANG : 0);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0)
            break;          /* ECHILD: nothing left */
        if (pid == 0) {
            if (!killed && tap_monotonic_ns() > deadline) {
                kill_children(SIGKILL);
                killed = true;
            }
            struct timespec ts = { 0, 10000000 };
            nanosleep(&ts, NULL);
            continue;
        }
        int r = child_index(pid);
        if (r < 0)
            continue;
        children[r] = 0;
        remaining--;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            continue;
        if (WIFEXITED(status) && WEXITSTATUS(status) == BENCH_EXIT_WRONG) {
            wrong = true;
            continue;
        }
        if (!stopping) {
            say_how_it_ended(r, status);
            rc = 1;
            stopping = true;
            deadline = tap_monotonic_ns() + KILL_AFTER_NS;
            kill_children(SIGTERM);
        } else if (!forwarded && !WIFSIGNALED(status)) {
            say_how_it_ended(r, status);    /* its own failure, not our SIGTERM */
        }
    }
    if (forwarded)
        return 128 + forwarded;
    return rc ? rc : wrong ? BENCH_EXIT_WRONG : 0;
}

int launch_forked(const struct bench_opts *o)
{
    int world = o->fork_ranks;
    if (options_check_world(o, world))
        return BENCH_EXIT_USAGE;
    struct rdv_shm *shm = rdv_shm_create(world, o->threads);

    /* Signals stay blocked while children are made, so that none arrives
     * before its pid is recorded; children get the defaults back. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old);
    struct sigaction sa, dfl_int, dfl_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &dfl_int);
    sigaction(SIGTERM, &sa, &dfl_term);

    fflush(NULL);   /* or children would print the parent's buffered output again */
    for (int r = 0; r < world; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            int e = errno;
            kill_children(SIGKILL);
            bench_note("fork failed: %s", strerror(e));
            while (wait(NULL) > 0)
                ;
            rdv_shm_destroy(shm);
            return 1;
        }
        if (pid == 0) {
            sigaction(SIGINT, &dfl_int, NULL);
            sigaction(SIGTERM, &dfl_term, NULL);
            sigprocmask(SIG_SETMASK, &old, NULL);
            exit(rank_run(o, rdv_shm_attach(shm, r), r, world, r));
        }
        children[r] = pid;
        nchildren = r + 1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);

    int rc = supervise();
    rdv_shm_destroy(shm);
    return rc;
}
