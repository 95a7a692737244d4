/* The directory the shim writes into (NCCLTAP_DIR), and the run id that
 * names this launch's files in it. */
#ifndef NCCLTAP_CLI_OUTDIR_H
#define NCCLTAP_CLI_OUTDIR_H

#include <stddef.h>

/* The output directory, absolute and created: `requested` (--dir) when not
 * NULL; else NCCLTAP_DIR from the environment; else ./nccltap-<job>, where
 * <job> is SLURM_JOB_ID (so that every task of a job, on every node, picks
 * the same name) reduced to one safe name (preload/base/run_id.h), or the
 * local time YYYYmmdd-HHMMSS. Created and checked as the shim does
 * (preload/base/out_dir.h: no symlink above it that another user
 * controls, a real directory, ours or root's, not writable by others
 * unless sticky; made with NCCLTAP_DIR_MODE, default 0700; a refused
 * NCCLTAP_DIR_MODE is said once). Returns a malloc'ed path, or NULL after
 * saying why on stderr. */
char *outdir_prepare(const char *requested);

/* The same rules for a directory below it (the LTTng trace's): a
 * descriptor, or -1 with errno and *why. */
int outdir_open(const char *path, const char **why);

/* Why no file could have been written in `dir`, as far as can be told
 * after the command: its filesystem read-only, no write permission for
 * nccltap's effective user, less than 64 KiB or no inode left. A phrase
 * (static, or in `buf`), or NULL when nothing there stopped a write. */
const char *outdir_why_unwritten(const char *dir, char *buf, size_t len);

/* The run id of what the command starts, in `id`: the launcher's where it
 * names the run (preload/base/run_id.h), which the shim finds too; else
 * the time and this command's pid, set as NCCLTAP_RUN_ID. */
void outdir_set_run_id(char *id, size_t len);

#endif
