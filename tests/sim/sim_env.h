/* Numeric knobs from the environment, shared by the simulated driver and
 * NCCL. A knob that is unset or empty takes its default; a bad value gets
 * one line on stderr naming the variable and what it accepts, and then the
 * default, so a typo never silently changes what a test measures. */
#ifndef NCCLSIM_ENV_H
#define NCCLSIM_ENV_H

/* `accepted` completes "expected ...", e.g. "a number > 0". */
double sim_env_double(const char *name, double def, double min, double max,
                      const char *accepted);
long sim_env_long(const char *name, long def, long min, long max, const char *accepted);

/* Whether the variable is set to a non-empty value. */
int sim_env_is_set(const char *name);

/* The simulator's knobs, one per line of sim_knobs.def, where each one's
 * name, default and range are: read through these, a knob cannot be read
 * under a name `nccltap help sim` does not list. */
enum sim_knob {
#define NCCLSIM_KNOB(id, group, def, min, max, accepted, meaning) SIM_##id,
#include "sim_knobs.def"
};

/* The knob's value, as sim_env_double/sim_env_long read it with the
 * table's default and range (a default below the range: none). */
double sim_knob_double(enum sim_knob k);
long sim_knob_long(enum sim_knob k);
int sim_knob_is_set(enum sim_knob k);
/* "NCCLSIM_<id>". */
const char *sim_knob_name(enum sim_knob k);

#endif
