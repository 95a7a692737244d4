/* The shim's variables as `nccltap run` sees them: the options that set
 * the common ones (--timing, --hang-timeout, --interval-ms, --ops-jsonl,
 * --prom-dir, and --step-function, which nccltap's Python step marker
 * reads, not the shim), their values checked by the shim's own parsers
 * (base/config.h) so that a bad one stops the command line, not a job's
 * worth of ranks; and the environment's NCCLTAP_* names checked for
 * misspellings, said once for the job. Single-threaded, as the command
 * is. shim_vars.c */
#ifndef NCCLTAP_CLI_SHIM_VARS_H
#define NCCLTAP_CLI_SHIM_VARS_H

/* Sets the variable of option `option` (its long name, without "--") to
 * `value`. Returns 0, or EXIT_USAGE after saying (after `argv0: `) what
 * the option accepts. */
int shim_var_set(const char *argv0, const char *option, const char *value);

/* Says, on stderr, each NCCLTAP_* name of the environment that nccltap
 * does not read, with the nearest it does; then sets NCCLTAP_VARS_CHECKED
 * so that the shim, in every rank, does not say it again. */
void shim_vars_check_env(void);

#endif
