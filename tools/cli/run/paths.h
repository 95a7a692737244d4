/* Where nccltap's parts are, found from the path of the running `nccltap`:
 * the build tree and an install have the same shape (bin/, lib/,
 * lib/nccltap/sim/), so no path is compiled in and a moved install works. */
#ifndef NCCLTAP_CLI_PATHS_H
#define NCCLTAP_CLI_PATHS_H

#include <stddef.h>

struct nccltap_paths {
    char *bindir;      /* the directory of this executable */
    char *shim;        /* .../lib/libnccltap.so */
    char *lttng_provider; /* .../lib/libnccltap-lttng.so, the shim's tracepoints */
    char *sim;         /* .../lib/nccltap/sim */
    char *sim_legacy;  /* .../lib/nccltap/sim-legacy */
    char *python;      /* .../lib/nccltap/python: the step marker's sitecustomize */
    char *bench;       /* .../bin/nccltap-bench */
};

/* Fills `p` (malloc'ed strings: paths_free). Returns 0, or -1 with the
 * reason in `why`. */
int paths_find(struct nccltap_paths *p, char *why, size_t why_len);
void paths_free(struct nccltap_paths *p);

/* `path` made absolute against the current directory (not resolved: the
 * user's spelling of symbolic links is kept). Malloc'ed. */
char *path_absolute(const char *path);

/* mkdir -p. Returns 0, or -1 with errno set. */
int mkdir_p(const char *path);

/* rm -rf: removes `path` and everything below it, without following
 * symbolic links. Returns 0, or -1 with errno set. */
int remove_tree(const char *path);

/* True when `path` exists (any type). */
int path_exists(const char *path);

#endif
