#include "nccl_knobs.h"

#include <pthread.h>
#include <stdio.h>

#include "sim_env.h"

static struct sim_knobs knobs;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void read_knobs(void)
{
    knobs.lat_us = sim_knob_double(SIM_LAT_US);
    knobs.busbw_gbs = sim_knob_double(SIM_BUSBW_GBS);
    knobs.slow_rank = (int)sim_knob_long(SIM_SLOW_RANK);
    knobs.slow_us = sim_knob_double(SIM_SLOW_US);
    knobs.slow_every = sim_knob_long(SIM_SLOW_EVERY);
    if (sim_knob_is_set(SIM_SLOW_EVERY) && knobs.slow_rank < 0)
        fprintf(stderr, "ncclsim: NCCLSIM_SLOW_EVERY has no effect without NCCLSIM_SLOW_RANK\n");
    knobs.hang_rank = (int)sim_knob_long(SIM_HANG_RANK);
    knobs.hang_seq = sim_knob_long(SIM_HANG_SEQ);
    knobs.rdv_timeout_s = sim_knob_double(SIM_RENDEZVOUS_TIMEOUT_S);
    knobs.slow_link_rank = (int)sim_knob_long(SIM_SLOW_LINK_RANK);
    knobs.slow_link_factor = sim_knob_double(SIM_SLOW_LINK_FACTOR);
    if (sim_knob_is_set(SIM_SLOW_LINK_FACTOR) && knobs.slow_link_rank < 0)
        fprintf(stderr, "ncclsim: NCCLSIM_SLOW_LINK_FACTOR has no effect without NCCLSIM_SLOW_LINK_RANK\n");
    knobs.slower_from_seq = sim_knob_long(SIM_SLOWER_FROM_SEQ);
    knobs.slower_factor = sim_knob_double(SIM_SLOWER_FACTOR);
    if (sim_knob_is_set(SIM_SLOWER_FACTOR) && knobs.slower_from_seq < 0)
        fprintf(stderr, "ncclsim: NCCLSIM_SLOWER_FACTOR has no effect without NCCLSIM_SLOWER_FROM_SEQ\n");
    knobs.first_call_us = sim_knob_double(SIM_FIRST_CALL_US);
    knobs.data = (int)sim_knob_long(SIM_DATA);
    knobs.reuse_handles = (int)sim_knob_long(SIM_REUSE_HANDLES);
    if (knobs.slow_rank >= 0 && knobs.slow_us == 0)
        fprintf(stderr, "ncclsim: NCCLSIM_SLOW_RANK=%d has no effect without NCCLSIM_SLOW_US\n",
                knobs.slow_rank);
    if (sim_knob_is_set(SIM_SLOW_US) && knobs.slow_rank < 0)
        fprintf(stderr, "ncclsim: NCCLSIM_SLOW_US has no effect without NCCLSIM_SLOW_RANK\n");
    if (sim_knob_is_set(SIM_HANG_SEQ) && knobs.hang_rank < 0)
        fprintf(stderr, "ncclsim: NCCLSIM_HANG_SEQ has no effect without NCCLSIM_HANG_RANK\n");
}

const struct sim_knobs *sim_knobs(void)
{
    pthread_once(&once, read_knobs);
    return &knobs;
}
