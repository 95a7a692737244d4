/* Opening an input of the report. A run's directory is often shared, and
 * anything can sit there under a rank file's name: a FIFO would block
 * open() and read() forever, a device would be read from. Only regular
 * files are read. */
#ifndef NCCLTAP_CLI_REPORT_INPUT_FILE_H
#define NCCLTAP_CLI_REPORT_INPUT_FILE_H

#include <stddef.h>

/* A descriptor of the regular file at `path`, opened for reading without
 * blocking and closed on exec; or -1 with `why` saying what it is instead
 * ("a FIFO, not a regular file") or why it cannot be opened (errno's text;
 * errno is ENOENT when there is no such file). */
int input_open(const char *path, char *why, size_t why_len);

#endif
