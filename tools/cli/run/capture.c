#include "capture.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The output goes to an unlinked temporary file rather than a pipe: a
 * daemon that forks (lttng-sessiond --daemonize) may keep a copy of the
 * descriptor, and reading a pipe until end of file would then wait for the
 * daemon to exit. A file is read once the direct child has exited. */
static char *read_all(FILE *f)
{
    if (fseek(f, 0, SEEK_END) != 0)
        return xstrdup("");
    long n = ftell(f);
    if (n <= 0 || fseek(f, 0, SEEK_SET) != 0)
        return xstrdup("");
    char *s = xmalloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    while (got > 0 && (s[got - 1] == '\n' || s[got - 1] == ' ' || s[got - 1] == '\r'))
        s[--got] = '\0';
    return s;
}

int capture_run(const char *const argv[], char **output)
{
    *output = NULL;
    FILE *f = tmpfile();
    if (!f) {
        *output = xasprintf("cannot create a temporary file: %s", strerror(errno));
        return -1;
    }
    int fd = fileno(f);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    posix_spawn_file_actions_adddup2(&fa, fd, 2);
    if (fd > 2)
        posix_spawn_file_actions_addclose(&fa, fd);
    pid_t pid;
    fflush(NULL);
    /* posix_spawn's argv is char *const[] for historical reasons; it does
     * not modify the strings. */
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)(void *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fclose(f);
        *output = xasprintf("cannot run %s: %s", argv[0], strerror(rc));
        return -1;
    }
    int status;
    pid_t w;
    do
        w = waitpid(pid, &status, 0);
    while (w < 0 && errno == EINTR);
    *output = read_all(f);
    fclose(f);
    if (w < 0)
        return -1;
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

char *capture_one_line(const char *s)
{
    /* At most one "; " per newline: twice the length is always enough. */
    char *line = xmalloc(2 * strlen(s) + 1), *o = line;
    for (const char *c = s; *c; c++) {
        if (*c != '\n') {
            *o++ = *c;
            continue;
        }
        while (o > line && o[-1] == ' ')
            o--;
        while (c[1] == '\n' || c[1] == ' ')
            c++;
        if (o > line && o[-1] != ';')
            *o++ = ';';
        *o++ = ' ';
    }
    *o = '\0';
    return line;
}
