/* Starting a command and waiting for it, like a shell would. */
#ifndef NCCLTAP_CLI_SPAWN_H
#define NCCLTAP_CLI_SPAWN_H

/* Runs argv (execvp) in a child and waits for it, forwarding SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to nccltap. Returns the
 * child's exit status, or 128+N when signal N killed it, as a shell does;
 * *signal is N then, and 0 when the child exited (whatever its status: a
 * shell's own 128+N, or `exit 200`, is an exit). Returns -1 when the
 * command could not be executed (exec failed) and -2 when nccltap could not
 * start a process or wait for it; *err gets the errno value. */
int spawn_wait(char *const argv[], int *err, int *signal);

#endif
