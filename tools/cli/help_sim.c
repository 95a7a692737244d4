/* `nccltap help sim`: see help_sim.h. Laid out as `nccltap help config`
 * (a Usage line, a paragraph, sections), but one line a knob: they are
 * few, and a fault is set by two of them read side by side. */
#include "help_sim.h"

#include <string.h>

enum group { FAULT, MODEL };

static const struct {
    const char *name;
    enum group group;
    double def, min;
    const char *meaning;
} knobs[] = {
#define NCCLSIM_KNOB(id, group, def, min, max, accepted, meaning) { "NCCLSIM_" #id, group, def, min, meaning },
#include "sim_knobs.def"
};

static void list(FILE *to, enum group g)
{
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        if (knobs[i].group != g)
            continue;
        char def[32];
        /* A default below the range is no value: a rank knob unset. */
        if (knobs[i].def < knobs[i].min)
            strcpy(def, "none");
        else
            snprintf(def, sizeof def, "%g", knobs[i].def);
        char left[64];
        snprintf(left, sizeof left, "%s=%s", knobs[i].name, def);
        fprintf(to, "  %-31s %s\n", left, knobs[i].meaning);
    }
}

void help_sim(FILE *to)
{
    fputs(
"Usage: nccltap help sim\n"
"The NCCLSIM_* environment variables of the simulated NCCL and CUDA driver\n"
"('nccltap run --sim', 'nccltap demo', the tests): the faults it injects and\n"
"its time model. Each is read once, when the simulator is loaded; a bad value\n"
"is said on stderr with what is accepted, and the default is used. A fault\n"
"needs both of its knobs (a rank, and by how much). Shown as NAME=DEFAULT.\n"
"tests/sim/README.md says more of each.\n"
"\n"
"Faults:\n", to);
    list(to, FAULT);
    fputs("\nTime model and run:\n", to);
    list(to, MODEL);
    fputs(
"\n"
"Examples:\n"
"  $ NCCLSIM_SLOW_RANK=2 NCCLSIM_SLOW_US=200 \\\n"
"      nccltap run --sim --dir out -- nccltap-bench --ranks 4 && nccltap report out\n"
"  $ nccltap demo --scenario slow-link   # sets NCCLSIM_SLOW_LINK_RANK=1, _FACTOR=4\n",
          to);
}
