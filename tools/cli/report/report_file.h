/* The report's output files (--perfetto OUT, --html FILE): written whole
 * or not at all. A temporary file beside the target, made under a new
 * unique name (mkstemp: O_CREAT | O_EXCL, so never through a link someone
 * planted there), filled, then renamed over the target. Called on the
 * command's one thread. report_file.c */
#ifndef NCCLTAP_CLI_REPORT_REPORT_FILE_H
#define NCCLTAP_CLI_REPORT_REPORT_FILE_H

#include <stdbool.h>
#include <stdio.h>

/* True when the file `path` can be made in its directory; otherwise says
 * so (after `argv0: `, naming `option` and the directory). Before the run
 * is read, so that a mistyped directory costs no loading. */
bool out_dir_writable(const char *argv0, const char *option, const char *path);

/* Calls write(out, ctx) on a temporary file beside `path`, then renames it
 * over `path`; where `path` is there and not a regular file (a device such
 * as /dev/null, a pipe, a symbolic link), on `path` itself, which a rename
 * would replace. write returns 0, or -1 when it could not write. Returns 0,
 * or -1 after saying why (the temporary file removed). A signal that ends
 * the process meanwhile (a crash, SIGINT, RLIMIT_FSIZE's SIGXFSZ) removes
 * the temporary file before it takes its course. */
int out_file_write(const char *path, int (*write)(FILE *out, void *ctx), void *ctx);

#endif
