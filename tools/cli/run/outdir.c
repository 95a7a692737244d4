#include "outdir.h"
#include "paths.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *default_name(void)
{
    const char *job = getenv("SLURM_JOB_ID");
    if (job && *job)
        return xasprintf("nccltap-%s", job);
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    return xasprintf("nccltap-%s", stamp);
}

char *outdir_prepare(const char *requested)
{
    const char *env = getenv("NCCLTAP_DIR");
    char *name;
    if (requested)
        name = xstrdup(requested);
    else if (env && *env)
        name = xstrdup(env);
    else
        name = default_name();
    /* Absolute, because the command may change its working directory before
     * the shim writes. */
    char *dir = path_absolute(name);
    free(name);
    if (mkdir_p(dir) != 0) {
        msg("cannot create the output directory %s: %s", dir, strerror(errno));
        free(dir);
        return NULL;
    }
    return dir;
}
