#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

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
    ssize_t ignored = write(STDERR_FILENO, line, (size_t)n);
    (void)ignored;
}
