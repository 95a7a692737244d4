/* Running a command under the shim: `nccltap run`, and the demo's bench. */
#ifndef NCCLTAP_CLI_RUN_H
#define NCCLTAP_CLI_RUN_H

#include "lttng_session.h"
#include "paths.h"

enum run_sim {
    RUN_SIM_NONE,    /* the system's NCCL and CUDA */
    RUN_SIM,         /* the simulated NCCL and CUDA driver */
    RUN_SIM_LEGACY,  /* the simulated pre-profiler NCCL, on the simulated driver */
};

struct run_opts {
    const char *dir;   /* --dir, or NULL for the default (see outdir.h) */
    enum run_sim sim;
    struct lttng_opts lttng;
};

/* Runs argv[0] (searched in PATH) with the shim preloaded, forwarding the
 * signals a job scheduler or a user sends, and says on stderr where the
 * output is. Returns the command's exit status (128+N when signal N killed
 * it), 126/127 when it cannot be run, 127 when the shim or simulator is
 * missing, 125 when nccltap itself fails (or, with --lttng, cannot set up the
 * session: the command is then not run). When `outdir` is not NULL it gets
 * the output directory (malloc'ed), or NULL. */
int run_under_shim(const struct nccltap_paths *paths, const struct run_opts *opts,
                   char *const argv[], char **outdir);

#endif
