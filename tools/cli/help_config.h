/* `nccltap help config`: every NCCLTAP_* variable, its default and the
 * values it accepts, from the one list of them (preload/base/
 * config_vars.def); the manual page nccltap-config(1) is made of it.
 * help_config.c */
#ifndef NCCLTAP_CLI_HELP_CONFIG_H
#define NCCLTAP_CLI_HELP_CONFIG_H

#include <stdio.h>

void help_config(FILE *to);

#endif
