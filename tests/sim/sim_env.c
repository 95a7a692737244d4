#include "sim_env.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int sim_env_is_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v;
}

static void complain(const char *name, const char *value, const char *accepted, const char *def)
{
    fprintf(stderr, "ncclsim: %s='%s' is not valid: expected %s; using the default %s\n",
            name, value, accepted, def);
}

double sim_env_double(const char *name, double def, double min, double max,
                      const char *accepted)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || *end || !isfinite(x) || x < min || x > max) {
        char buf[32];
        snprintf(buf, sizeof buf, "%g", def);
        complain(name, v, accepted, buf);
        return def;
    }
    return x;
}

long sim_env_long(const char *name, long def, long min, long max, const char *accepted)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < min || x > max) {
        char buf[32];
        snprintf(buf, sizeof buf, "%ld", def);
        complain(name, v, accepted, buf);
        return def;
    }
    return x;
}

static const struct {
    const char *name;
    double def, min, max;
    const char *accepted;
} knobs[] = {
#define NCCLSIM_KNOB(id, group, def, min, max, accepted, meaning) { "NCCLSIM_" #id, def, min, max, accepted },
#include "sim_knobs.def"
};

const char *sim_knob_name(enum sim_knob k)
{
    return knobs[k].name;
}

double sim_knob_double(enum sim_knob k)
{
    return sim_env_double(knobs[k].name, knobs[k].def, knobs[k].min, knobs[k].max, knobs[k].accepted);
}

long sim_knob_long(enum sim_knob k)
{
    return sim_env_long(knobs[k].name, (long)knobs[k].def, (long)knobs[k].min, (long)knobs[k].max,
                        knobs[k].accepted);
}

int sim_knob_is_set(enum sim_knob k)
{
    return sim_env_is_set(knobs[k].name);
}
