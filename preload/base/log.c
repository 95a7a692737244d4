#include "base/log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* Which file stderr was at load: looked at all (not in the CLI), and
 * open then. */
static bool stderr_looked, stderr_open;
static dev_t stderr_dev;
static ino_t stderr_ino;

void tap_log_at_load(void)
{
    struct stat st;
    stderr_looked = true;
    stderr_open = fstat(STDERR_FILENO, &st) == 0;
    stderr_dev = stderr_open ? st.st_dev : 0;
    stderr_ino = stderr_open ? st.st_ino : 0;
}

/* Whether descriptor 2 is stderr still, or a log (log.h): a file opened
 * to append, or a terminal. Not another file, pipe or socket: one the
 * program opened after closing stderr gets descriptor 2. */
static bool stderr_ours(void)
{
    struct stat st;
    if (!stderr_looked)
        return true;
    if (fstat(STDERR_FILENO, &st) != 0)
        return false;
    if (stderr_open && st.st_dev == stderr_dev && st.st_ino == stderr_ino)
        return true;
    int flags = fcntl(STDERR_FILENO, F_GETFL);
    return (S_ISREG(st.st_mode) && flags >= 0 && (flags & O_APPEND)) || isatty(STDERR_FILENO);
}

void tap_log(const char *fmt, ...)
{
    /* One write(2) per message so lines from many ranks do not interleave. */
    char line[1024];
    int n = snprintf(line, sizeof line, "nccltap: ");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    if (!stderr_ours())
        return;
    ssize_t ignored = write(STDERR_FILENO, line, (size_t)n);
    (void)ignored;
}
