/* `nccltap help sim`: the simulator's knobs (every NCCLSIM_* variable),
 * one line each with its default, from the one list of them
 * (tests/sim/sim_knobs.def), which the simulator reads them through.
 * help_sim.c */
#ifndef NCCLTAP_CLI_HELP_SIM_H
#define NCCLTAP_CLI_HELP_SIM_H

#include <stdio.h>

void help_sim(FILE *to);

#endif
