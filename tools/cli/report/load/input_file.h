/* Opening an input of the report. A run's directory is often shared, and
 * anything can sit there under a rank file's name: a FIFO would block
 * open() and read() forever, a device would be read from. Only regular
 * files are read, and only up to a size stated by the caller
 * (input_limits.h). */
#ifndef NCCLTAP_CLI_REPORT_INPUT_FILE_H
#define NCCLTAP_CLI_REPORT_INPUT_FILE_H

#include <stddef.h>
#include <stdint.h>

/* A descriptor of the regular file at `path`, of at most `max_bytes`,
 * opened for reading without blocking and closed on exec; or -1 with `why`
 * saying what it is instead ("a FIFO, not a regular file", "100.0 GiB,
 * over the limit of 4.0 GiB") or why it cannot be opened (errno's text;
 * errno is ENOENT when there is no such file). */
int input_open(const char *path, uint64_t max_bytes, char *why, size_t why_len);

/* The same for a path that an input chose (a load map's object): also
 * refused when, symlinks resolved, it is under /dev, /proc or /sys, or the
 * opened file is on procfs or sysfs; opened blocking (O_NONBLOCK cleared),
 * as libelf reads it. */
int input_open_chosen(const char *path, uint64_t max_bytes, char *why, size_t why_len);

#endif
