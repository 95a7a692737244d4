/* `nccltap help config`: see help_config.h. Laid out for help2man as the
 * other help texts are (usage.c): a Usage line, a paragraph, then a
 * section of entries. */
#include "help_config.h"

static const struct {
    const char *name, *def, *accepted, *meaning;
} vars[] = {
#define NCCLTAP_VAR(name, def, accepted, meaning) { name, def, accepted, meaning },
#include "base/config_vars.def"
};

void help_config(FILE *to)
{
    fputs(
"Usage: nccltap help config\n"
"The NCCLTAP_* environment variables that configure the nccltap shim in each\n"
"process. Each is read once, when the shim is loaded; a bad value is said on\n"
"stderr with what is accepted, and the default is used. A NCCLTAP_* name that\n"
"nccltap does not read (a misspelling) is said once for the job, with the\n"
"nearest name it reads. 'nccltap run' passes them on to every rank, and its\n"
"options --timing, --hang-timeout, --interval-ms, --ops-jsonl and --prom-dir\n"
"set the common ones. docs/configuration.md says more of each.\n"
"\n"
"Variables:\n", to);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        fprintf(to, "  %s\n      %s\n      default: %s; accepted: %s\n", vars[i].name, vars[i].meaning,
                vars[i].def, vars[i].accepted);
    fputs(
"\n"
"Examples:\n"
"  $ NCCLTAP_TIMING=all NCCLTAP_HANG_TIMEOUT_S=60 nccltap run -- ./app\n"
"  $ nccltap run --timing all --hang-timeout 60 -- ./app\n", to);
}
