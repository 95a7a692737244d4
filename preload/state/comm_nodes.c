#include "state/comm_nodes.h"

#include "base/config.h"

int tap_comm_nodes(const struct tap_comm *comm)
{
    if (comm->origin == TAP_ORIGIN_OVERFLOW)
        return 0; /* many communicators' calls */
    if (comm->nranks <= 1)
        return 1;
    int here = 0;
    for (unsigned i = 0, n = tap_comm_count(); i < n; i++)
        here += tap_comm_at(i)->id == comm->id;
    if (here >= comm->nranks)
        return 1;
    if (tap_config.job_ranks && (uint32_t)comm->nranks == tap_config.job_ranks)
        return (int)tap_config.job_nodes;
    return 0;
}
