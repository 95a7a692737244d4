/* The directory the shim writes into (NCCLTAP_DIR). */
#ifndef NCCLTAP_CLI_OUTDIR_H
#define NCCLTAP_CLI_OUTDIR_H

/* The output directory, absolute and created: `requested` (--dir) when not
 * NULL; else NCCLTAP_DIR from the environment; else ./nccltap-<job>, where
 * <job> is SLURM_JOB_ID (so that every task of a job, on every node, picks
 * the same name) or the local time YYYYmmdd-HHMMSS. Returns a malloc'ed
 * path, or NULL after saying why on stderr. */
char *outdir_prepare(const char *requested);

#endif
