/* The subcommands. Each takes its own argv (argv[0] is "nccltap <name>")
 * and returns the process's exit status. */
#ifndef NCCLTAP_CLI_H
#define NCCLTAP_CLI_H

#include <stdio.h>

/* Exit statuses of nccltap's own failures, as env(1) and timeout(1) use
 * them, so they do not collide with a wrapped command's usual statuses. */
enum {
    EXIT_USAGE = 2,
    EXIT_NCCLTAP_FAILED = 125,
    EXIT_CANNOT_EXEC = 126,
    EXIT_NOT_FOUND = 127,
};

int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_demo(int argc, char **argv);

/* Loads DIR and prints its text report on stdout: what `nccltap report DIR`
 * does, for the demo. Returns the exit status. report/report_cmd.c */
int report_dir_text(const char *dir);

/* The help texts: nccltap's (the commands, one line each), and each
 * command's own, printed by `nccltap CMD --help` and `nccltap help CMD`.
 * main.c */
void usage(FILE *to);
void usage_run(FILE *to);
void usage_report(FILE *to);
void usage_demo(FILE *to);
/* "<argv0>: <message>" and a pointer to the command's --help on stderr; returns EXIT_USAGE. */
int usage_error(const char *argv0, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Only the pointer to --help, after getopt has said what is wrong. */
int usage_hint(void);

#endif
