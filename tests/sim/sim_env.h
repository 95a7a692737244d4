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

#endif
