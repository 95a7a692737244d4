/* nccltap's help texts and usage messages: what `nccltap --help`,
 * `nccltap CMD --help` and `nccltap help CMD` print, and the "Try
 * '... --help'" pointer after a wrong command line. The bottom of the
 * command: main.c and every subcommand call it, it calls none of them.
 * Single-threaded, as the command is. */
#ifndef NCCLTAP_CLI_USAGE_H
#define NCCLTAP_CLI_USAGE_H

#include <stdio.h>

/* Exit statuses of nccltap's own failures, as env(1) and timeout(1) use
 * them, so they do not collide with a wrapped command's usual statuses. */
enum {
    EXIT_USAGE = 2,
    EXIT_NCCLTAP_FAILED = 125,
    EXIT_CANNOT_EXEC = 126,
    EXIT_NOT_FOUND = 127,
};

/* The help texts: nccltap's (the commands, one line each), and each
 * command's own, printed by `nccltap CMD --help` and `nccltap help CMD`.
 * usage.c */
void usage(FILE *to);
void usage_run(FILE *to);
void usage_report(FILE *to);
void usage_demo(FILE *to);
/* "<argv0>: <message>" and a pointer to the command's --help on stderr; returns EXIT_USAGE. */
int usage_error(const char *argv0, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Only the pointer to --help, after getopt has said what is wrong. */
int usage_hint(void);

/* The command being run ("nccltap run"): the one usage_hint points to.
 * `command` must outlive the process's use of it (main's argv). */
void usage_set_command(const char *command);

#endif
