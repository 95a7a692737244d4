#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a scheduler (Slurm's scancel and time limit, a batch system's
 * preemption) or a user sends to stop or poke a job. Forwarding them lets the
 * application shut down cleanly, and the shim write its final report. */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
#define NFORWARDED (sizeof forwarded / sizeof forwarded[0])

static volatile sig_atomic_t child_pid;

static void forward(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    /* Signals the kernel sends on behalf of a terminal (Ctrl-C, Ctrl-\,
     * hangup) go to the whole foreground process group, which the child is
     * part of: it already has its copy, and a second one would interrupt its
     * handling of the first. */
    if (si && si->si_code == SI_KERNEL)
        return;
    pid_t pid = (pid_t)child_pid;
    if (pid > 0)
        kill(pid, sig);
}

/* Installs the forwarding handler, except for signals nccltap was started
 * with ignored (nohup's SIGHUP): a handler would be reset to the default
 * action by exec, and the command would lose the ignore it should inherit. */
static void install_forwarding(void)
{
    for (size_t i = 0; i < NFORWARDED; i++) {
        struct sigaction old;
        if (sigaction(forwarded[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = forward;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(forwarded[i], &sa, NULL);
    }
}

/* The status a shell would report, and the signal that killed the child
 * (0 when it exited: then even a status above 128 is its own). */
static int exit_status(int status, int *signal)
{
    *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return *signal ? 128 + *signal : WEXITSTATUS(status);
}

int spawn_wait(char *const argv[], int *err, int *signal)
{
    *err = 0;
    *signal = 0;
    /* Exec failures come back through a close-on-exec pipe: it reads EOF
     * when exec succeeds, or the child's errno when it fails. */
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        *err = errno;
        return -2;
    }
    install_forwarding();
    /* Blocked until child_pid is set, so that a signal arriving around the
     * fork is forwarded rather than lost. */
    sigset_t block, saved;
    sigemptyset(&block);
    for (size_t i = 0; i < NFORWARDED; i++)
        sigaddset(&block, forwarded[i]);
    sigprocmask(SIG_BLOCK, &block, &saved);

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        *err = errno;
        sigprocmask(SIG_SETMASK, &saved, NULL);
        close(pipefd[0]);
        close(pipefd[1]);
        return -2;
    }
    if (pid == 0) {
        close(pipefd[0]);
        sigprocmask(SIG_SETMASK, &saved, NULL);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(pipefd[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    child_pid = pid;
    sigprocmask(SIG_SETMASK, &saved, NULL);
    close(pipefd[1]);

    int exec_errno = 0;
    ssize_t n;
    do
        n = read(pipefd[0], &exec_errno, sizeof exec_errno);
    while (n < 0 && errno == EINTR);
    close(pipefd[0]);

    int status = 0;
    pid_t w;
    do
        w = waitpid(pid, &status, 0);
    while (w < 0 && errno == EINTR);
    child_pid = 0;
    if (n == (ssize_t)sizeof exec_errno) {
        *err = exec_errno;
        return -1;
    }
    if (w < 0) {
        *err = errno;
        return -2;
    }
    return exit_status(status, signal);
}
