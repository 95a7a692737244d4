/* The Prometheus files an earlier image of this process left. exec()
 * ends an image with no exit handler, so the files it wrote in
 * NCCLTAP_PROM_DIR stay, and node_exporter would serve the dead image's
 * last values as live (its last op pending for ever). The image that
 * exec() started removes them as it loads: only those certainly the
 * earlier image's, i.e. regular files of this user named nccltap_*.prom
 * whose first line is this process's mark (prom_owner.h), the GPU's name
 * lock (.nccltap_<GPU>.lock, prom_file.c) held meanwhile where the name
 * has one, so that no other process writes that name under it.
 * NCCLTAP_PROM_KEEP=1 keeps them, as it keeps a process's files at exit. */
#ifndef NCCLTAP_PROM_STALE_H
#define NCCLTAP_PROM_STALE_H

/* Called by the shim's constructor (one thread, cold path) once the image
 * is noted (output.h). Never blocks (the lock is tried, never waited
 * for), never fails the process: what cannot be removed stays, and a
 * failure is said once; what was removed is said with
 * NCCLTAP_VERBOSE=1. */
void tap_prom_remove_earlier_image(void);

#endif
