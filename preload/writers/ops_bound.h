/* How much of the per-op file, and of the per-op log, a process writes at
 * most: NCCLTAP_OPS_MAX_MB when it is set; by default the process's share
 * of TAP_OPS_JOB_MAX_MB (16 GiB) over the job's processes, at most
 * TAP_OPS_MAX_MB_DEFAULT (256 MiB) and at least 1 MiB, so that a job of
 * any size writes at most 16 GiB of each on a shared filesystem (a job of
 * 1,000 ranks: 16 MiB a process; of 64 or fewer: 256 MiB). The job's
 * processes: the launcher's world size (WORLD_SIZE, OMPI_COMM_WORLD_SIZE,
 * SLURM_NTASKS, PMI_SIZE), else the size of the largest communicator this
 * process is in when the bound is first asked (at the first per-op record,
 * after the communicators are made). Decided once. Reducer thread. */
#ifndef NCCLTAP_OPS_BOUND_H
#define NCCLTAP_OPS_BOUND_H

#include <stdint.h>

/* The bound, in bytes (0: write none). */
uint64_t tap_ops_max_bytes(void);

/* In a forked child: decided again. */
void tap_ops_bound_reset(void);

#endif
