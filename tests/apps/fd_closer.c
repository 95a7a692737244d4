/* A launcher that does what Open MPI's does before it runs a rank: fork,
 * close every descriptor above 2 in the child (it does not know which ones
 * libraries of its own opened), then exec the rank.
 * Usage: fd_closer N CMD [ARG...]   runs N copies; exits 1 when one failed. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fd_closer N CMD [ARG...]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            long max = sysconf(_SC_OPEN_MAX);
            if (max < 0 || max > 65536)
                max = 65536;
            for (int fd = 3; fd < max; fd++)
                close(fd);
            execvp(argv[2], argv + 2);
            _exit(127);
        }
    }
    int failed = 0, status;
    while (wait(&status) > 0)
        failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    if (failed)
        fprintf(stderr, "fd_closer: %d of %d failed\n", failed, n);
    return failed ? 1 : 0;
}
