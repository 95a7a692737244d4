/* After the command of `nccltap run` ends: the Prometheus files that its
 * processes could not remove themselves (killed by SIGTERM from a
 * scheduler or torchrun, SIGKILL, a crash) are removed, so that
 * node_exporter does not serve a dead job's last values as live and its
 * pending ops do not read as a hang for ever. A file is stale when the
 * lock its writer holds for its whole life (.nccltap_<gpu>.lock beside
 * nccltap_<gpu>.prom, preload/writers/prom_file.c) is free: no process
 * writes it any more, whatever job it was; so is a writer's temporary
 * file of it that a rank killed mid-write left. Called on nccltap's thread,
 * once the command has been waited for. */
#ifndef NCCLTAP_CLI_RUN_PROM_SWEEP_H
#define NCCLTAP_CLI_RUN_PROM_SWEEP_H

/* Sweeps NCCLTAP_PROM_DIR (from the environment; nothing without it, or
 * with NCCLTAP_PROM_KEEP=1). Returns the files removed. */
unsigned prom_sweep(void);

#endif
