/* The two ways ranks come to be: forked here (--ranks N) or started by a
 * launcher (mpirun, srun, torchrun), one process per rank. */
#ifndef NCCLTAP_BENCH_LAUNCH_H
#define NCCLTAP_BENCH_LAUNCH_H

#include "options.h"

/* Forks --ranks children, supervises them, returns the exit status. */
int launch_forked(const struct bench_opts *o);

/* Runs the one rank the environment says this process is. Returns the exit
 * status. */
int launch_single(const struct bench_opts *o);

#endif
