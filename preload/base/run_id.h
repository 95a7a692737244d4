/* The run id: in the name of every file nccltap writes, so that a second
 * run into the same directory is told apart from the first (the report
 * reads the newest run unless given `--run ID`). It must be the same in
 * every process of one launch, on every node, with no communication:
 *   1. NCCLTAP_RUN_ID: `nccltap run` sets it for everything it starts;
 *   2. the launcher's id: SLURM_JOB_ID.SLURM_STEP_ID, TORCHELASTIC_RUN_ID
 *      (with .rN after an elastic restart), PMIX_NAMESPACE (Open MPI 5 and
 *      other PMIx launchers), OMPI_MCA_ess_base_jobid (Open MPI 4),
 *      LSB_JOBID, PBS_JOBID, FLUX_JOB_ID;
 *   3. else the process group: pg<pgid>-<its leader's start time>, shared
 *      by what one shell command line starts (a launcher and its ranks).
 * Ids are reduced to file-name characters (out_file.h); one too long for
 * its buffer keeps its head and a hash of the whole (ids that differ at
 * the end stay apart). Where the job id
 * names the default output directory, tap_job_dir_name() makes it one safe
 * path component. */
#ifndef NCCLTAP_RUN_ID_H
#define NCCLTAP_RUN_ID_H

#include <stddef.h>

/* Steps 1 and 2; `get` reads a variable (getenv). Returns 1 and fills
 * `out`, or 0 when no launcher is known. Pure but for `get`. */
int tap_run_id_of_launcher(char *out, size_t len, char *(*get)(const char *));

/* Step 3, for this process. */
void tap_run_id_of_process_group(char *out, size_t len);

/* The most characters of a job id kept in a directory name. */
#define TAP_JOB_DIR_ID_MAX 128

/* The default output directory's name for the launcher's job id `job`:
 * "nccltap-<job>", the id reduced to file-name characters (out_file.h) and
 * cut to TAP_JOB_DIR_ID_MAX of them. Always one path component: never "."
 * or "..", never hidden, no '/' or control character, well under
 * NAME_MAX, whatever the launcher's environment holds
 * (TORCHELASTIC_RUN_ID='a/../../x' must not lead out of the working
 * directory). Pure. */
void tap_job_dir_name(char *out, size_t len, const char *job);

#endif
