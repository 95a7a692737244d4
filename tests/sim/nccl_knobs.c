#include "nccl_knobs.h"

#include <pthread.h>
#include <stdio.h>

#include "sim_env.h"

static struct sim_knobs knobs;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void read_knobs(void)
{
    knobs.lat_us = sim_env_double("NCCLSIM_LAT_US", 5, 0, 1e9, "a number of microseconds >= 0");
    knobs.busbw_gbs = sim_env_double("NCCLSIM_BUSBW_GBS", 100, 1e-6, 1e9, "a number of GB/s > 0");
    knobs.slow_rank = (int)sim_env_long("NCCLSIM_SLOW_RANK", -1, 0, 1 << 30, "a rank >= 0");
    knobs.slow_us = sim_env_double("NCCLSIM_SLOW_US", 0, 0, 1e9, "a number of microseconds >= 0");
    knobs.hang_rank = (int)sim_env_long("NCCLSIM_HANG_RANK", -1, 0, 1 << 30, "a rank >= 0");
    knobs.hang_seq = sim_env_long("NCCLSIM_HANG_SEQ", 0, 0, 1L << 62,
                                  "a collective sequence number >= 0");
    knobs.rdv_timeout_s = sim_env_double("NCCLSIM_RENDEZVOUS_TIMEOUT_S", 60, 1e-3, 1e6,
                                         "a number of seconds > 0");
    knobs.slow_link_rank = (int)sim_env_long("NCCLSIM_SLOW_LINK_RANK", -1, 0, 1 << 30, "a rank >= 0");
    knobs.slow_link_factor = sim_env_double("NCCLSIM_SLOW_LINK_FACTOR", 1, 1, 1e6, "a factor >= 1");
    if (sim_env_is_set("NCCLSIM_SLOW_LINK_FACTOR") && knobs.slow_link_rank < 0)
        fprintf(stderr, "ncclsim: NCCLSIM_SLOW_LINK_FACTOR has no effect without NCCLSIM_SLOW_LINK_RANK\n");
    knobs.first_call_us = sim_env_double("NCCLSIM_FIRST_CALL_US", 0, 0, 1e9, "a number of microseconds >= 0");
    knobs.data = (int)sim_env_long("NCCLSIM_DATA", 0, 0, 1, "0 or 1");
    knobs.reuse_handles = (int)sim_env_long("NCCLSIM_REUSE_HANDLES", 0, 0, 1, "0 or 1");
    if (knobs.slow_rank >= 0 && knobs.slow_us == 0)
        fprintf(stderr, "ncclsim: NCCLSIM_SLOW_RANK=%d has no effect without NCCLSIM_SLOW_US\n",
                knobs.slow_rank);
    if (sim_env_is_set("NCCLSIM_SLOW_US") && knobs.slow_rank < 0)
        fprintf(stderr, "ncclsim: NCCLSIM_SLOW_US has no effect without NCCLSIM_SLOW_RANK\n");
    if (sim_env_is_set("NCCLSIM_HANG_SEQ") && knobs.hang_rank < 0)
        fprintf(stderr, "ncclsim: NCCLSIM_HANG_SEQ has no effect without NCCLSIM_HANG_RANK\n");
}

const struct sim_knobs *sim_knobs(void)
{
    pthread_once(&once, read_knobs);
    return &knobs;
}
