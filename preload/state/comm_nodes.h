/* The nodes a communicator spans, as far as one process can tell: an
 * interposer sees no topology (NCCL Inspector gets it from NCCL's profiler
 * interface). For Inspector's records (inspector_log.c) and gauges
 * (prom_inspector.c). Not for the hot path: it walks the registry. */
#ifndef NCCLTAP_COMM_NODES_H
#define NCCLTAP_COMM_NODES_H

#include "state/comm_registry.h"

/* 1 for one rank, or when all its ranks are in this process; the
 * launcher's node count (tap_config.job_nodes) when it has all the job's
 * ranks; otherwise 0, unknown (always for (overflow)). */
int tap_comm_nodes(const struct tap_comm *comm);

#endif
