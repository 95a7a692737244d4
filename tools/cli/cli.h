/* The subcommands. Each takes its own argv (argv[0] is "nccltap <name>")
 * and returns the process's exit status. Their help texts and usage
 * messages are usage.h's, included here for every command. */
#ifndef NCCLTAP_CLI_H
#define NCCLTAP_CLI_H

#include "usage.h"

int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_demo(int argc, char **argv);

/* Loads DIR and prints its text report on stdout: what `nccltap report DIR`
 * does, for the demo. Returns the exit status. report/report_cmd.c */
int report_dir_text(const char *dir);

#endif
