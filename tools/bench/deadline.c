#include "deadline.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fail.h"

static char message[512];     /* written before the clock starts, read by the handler */
static size_t message_len;
static _Atomic int parties_left;

static void expired(int sig)
{
    (void)sig;
    /* Async-signal-safe: one write of what was formatted up front. */
    ssize_t w = write(STDERR_FILENO, message, message_len);
    (void)w;
    _exit(1);
}

void deadline_arm(int seconds, int parties, const char *what)
{
    message_len = fail_format(message, sizeof message, "timed out after %d s %s", seconds, what);
    atomic_store(&parties_left, parties);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = expired;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    alarm((unsigned)seconds);
}

void deadline_party_done(void)
{
    if (atomic_fetch_sub(&parties_left, 1) == 1)
        alarm(0);
}
