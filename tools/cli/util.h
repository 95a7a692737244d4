/* Small helpers shared by the subcommands: messages prefixed with the
 * program's name, and allocation that cannot fail (a CLI that runs out of
 * memory has nothing better to do than stop). */
#ifndef NCCLTAP_CLI_UTIL_H
#define NCCLTAP_CLI_UTIL_H

#include <stddef.h>

/* "nccltap: <message>\n" on stderr, with what a terminal would act on
 * escaped (escape.h, shown_message). */
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* p grown (doubling from `first`) so that it holds more than n elements of
 * `size` bytes; *cap is its capacity in elements. */
void *xgrow(void *p, size_t *cap, size_t n, size_t size, size_t first);
/* The last component of `path` (past its last '/'), inside it. */
const char *path_base(const char *path);
/* qsort's comparator for an array of C strings, in strcmp order. */
int cmp_cstr(const void *a, const void *b);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Sets the variable `name` to "value" or, when it already holds something,
 * "value:old": what the user had is kept, after ours. */
void env_prepend(const char *name, const char *value);

/* `s` as one shell word (single-quoted when it holds more than plainly safe
 * characters), for a command the user can paste. Malloc'ed. */
char *shell_quoted(const char *s);

#endif
