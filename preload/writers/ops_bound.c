#include "writers/ops_bound.h"

#include "base/config.h"
#include "state/comm_registry.h"

static uint64_t bound_mb;
static int decided;

/* The job's processes: the launcher's world, else the largest
 * communicator's ranks (a rank per process, as launchers start them). */
static uint32_t job_processes(void)
{
    if (tap_config.job_world)
        return tap_config.job_world;
    uint32_t most = 1;
    for (unsigned i = 0; i < tap_comm_count(); i++) {
        int n = tap_comm_at(i)->nranks;
        if (n > 0 && (uint32_t)n > most)
            most = (uint32_t)n;
    }
    return most;
}

uint64_t tap_ops_max_bytes(void)
{
    if (!decided) {
        uint32_t share = TAP_OPS_JOB_MAX_MB / job_processes();
        bound_mb = tap_config.ops_max_set ? tap_config.ops_max_mb
                 : share > TAP_OPS_MAX_MB_DEFAULT ? TAP_OPS_MAX_MB_DEFAULT
                 : share < 1 ? 1 : share;
        decided = 1;
    }
    return bound_mb << 20;
}

void tap_ops_bound_reset(void)
{
    decided = 0;
}
