/* Finding the CTF traces at or below a path. */
#ifndef NCCLTAP_CLI_TRACE_FIND_H
#define NCCLTAP_CLI_TRACE_FIND_H

#include <stddef.h>

/* The directories at or below `path` that hold a CTF `metadata` file
 * (`path` may also be such a file), sorted, kernel traces (LTTng's
 * "kernel" directory) included. A NULL-terminated malloc'ed array of *n paths,
 * or NULL (errno set) when `path` cannot be read. */
char **trace_dirs_find(const char *path, size_t *n);
void trace_dirs_free(char **dirs);

/* The run a trace directory is of: its session's output directory, the
 * part of `dir` before LTTng's "/ust/" or "/kernel" (`dir` itself for a
 * bare CTF trace). Its length in *len. */
const char *trace_run_root(const char *dir, size_t *len);

/* Keeps in dirs (NULL-terminated, *n of them, from trace_dirs_find) only
 * those of the newest run: the root holding the most recently written
 * metadata. Returns the other runs' roots, ", " separated (malloc'ed), and
 * their count in *others; NULL when there is one run. */
char *trace_dirs_keep_newest(char **dirs, size_t *n, size_t *others);

#endif
