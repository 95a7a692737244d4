/* nccltap: the command. Dispatches to the subcommands, each in its own file
 * (run/run.c, report/report_cmd.c, demo.c); the help texts are usage.c's. */
#include "cli.h"
#include "help_config.h"
#include "help_sim.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    void (*usage)(FILE *to);
} commands[] = {
    { "run", cmd_run, usage_run },
    { "report", cmd_report, usage_report },
    { "demo", cmd_demo, usage_demo },
};

/* The help of the command `name`, or -1 when there is no such command. */
static int usage_of(const char *name, FILE *to)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(name, commands[i].name) == 0) {
            commands[i].usage(to);
            return 0;
        }
    }
    if (strcmp(name, "help") == 0) {
        usage(to);
        return 0;
    }
    /* Not a command: the shim's variables. */
    if (strcmp(name, "config") == 0) {
        help_config(to);
        return 0;
    }
    /* Nor is this: the simulator's knobs. */
    if (strcmp(name, "sim") == 0) {
        help_sim(to);
        return 0;
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "help") == 0) {
        if (argc > 3)
            return usage_error("nccltap help", "takes at most one command");
        if (argc == 2) {
            usage(stdout);
            return 0;
        }
        if (usage_of(argv[2], stdout) == 0)
            return 0;
        return usage_error("nccltap help", "unknown command '%s' (known: run, report, demo, help, config, sim)",
                           argv[2]);
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("nccltap %s\n", NCCLTAP_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(name, commands[i].name) != 0)
            continue;
        /* The subcommand's messages (getopt's too) start "nccltap NAME:". */
        argv[1] = xasprintf("nccltap %s", name);
        usage_set_command(argv[1]);
        return commands[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "nccltap: unknown command '%s'\n\n", name);
    usage(stderr);
    return EXIT_USAGE;
}
