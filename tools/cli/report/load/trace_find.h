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

#endif
