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
