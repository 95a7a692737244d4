/* Finding lttng-ust's helper libraries (liblttng-ust-fork.so,
 * liblttng-ust-fd.so) for the traced command's LD_PRELOAD, without loading
 * them into nccltap (they bring liblttng-ust, whose constructor would
 * register nccltap with the session daemon). */
#ifndef NCCLTAP_CLI_UST_LIBS_H
#define NCCLTAP_CLI_UST_LIBS_H

/* The path of `name`.1 (or `name`, e.g. "liblttng-ust-fd.so") in
 * LD_LIBRARY_PATH's directories, lttng-ust's own library directory, or the
 * system's; NULL when there is none. Malloc'ed. */
char *ust_library(const char *name);

#endif
