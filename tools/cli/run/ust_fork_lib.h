/* Finding liblttng-ust-fork.so, without loading it into nccltap (it brings
 * liblttng-ust, whose constructor would register nccltap with the session
 * daemon). */
#ifndef NCCLTAP_CLI_UST_FORK_LIB_H
#define NCCLTAP_CLI_UST_FORK_LIB_H

/* The path of liblttng-ust-fork.so.1 (or .so) in LD_LIBRARY_PATH's
 * directories, lttng-ust's own library directory, or the system's; NULL
 * when there is none. Malloc'ed. */
char *ust_fork_library(void);

#endif
