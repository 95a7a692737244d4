#include "util.h"
#include "escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void msg(const char *fmt, ...)
{
    /* Built in one buffer and written at once, so that the line is not
     * interleaved with the output of the command nccltap runs. */
    char text[2048], line[4 * sizeof text + 16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* File names and what files say reach the terminal escaped: a file in
     * a run's directory must not move the cursor or clear the screen. */
    int n = snprintf(line, sizeof line, "nccltap: ");
    shown_message(text, line + n, sizeof line - (size_t)n - 1);
    strcat(line, "\n");
    fputs(line, stderr);
}

static void *check(void *p)
{
    if (!p) {
        fputs("nccltap: out of memory\n", stderr);
        abort();
    }
    return p;
}

void *xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1)); }
void *xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *xstrdup(const char *s) { return check(strdup(s)); }

char *xasprintf(const char *fmt, ...)
{
    char *s = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return check(n < 0 ? NULL : s);
}

void env_prepend(const char *name, const char *value)
{
    const char *old = getenv(name);
    char *v = old && *old ? xasprintf("%s:%s", value, old) : xstrdup(value);
    setenv(name, v, 1);
    free(v);
}

void *xgrow(void *p, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap)
        return p;
    *cap = *cap ? 2 * *cap : first;
    return xrealloc(p, *cap * size);
}

const char *path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *shell_quoted(const char *s)
{
    if (strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                  "_./-+:,@%=") == strlen(s))
        return xstrdup(s);
    size_t n = 3;
    for (const char *c = s; *c; c++)
        n += *c == '\'' ? 4 : 1;
    char *q = xmalloc(n), *o = q;
    *o++ = '\'';
    for (const char *c = s; *c; c++) {
        if (*c == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *c;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}
