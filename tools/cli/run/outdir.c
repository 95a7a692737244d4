#include "outdir.h"
#include "base/out_dir.h"
#include "paths.h"
#include "base/run_id.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* NCCLTAP_DIR_MODE as the shim reads it: a bad value is said, 0700 used. */
static mode_t dir_mode(void)
{
    const char *s = getenv("NCCLTAP_DIR_MODE");
    mode_t m = TAP_OUT_DIR_MODE_DEFAULT;
    if (s && *s && tap_out_parse_mode(s, &m) != 0) {
        msg("NCCLTAP_DIR_MODE=%s is not valid: expected an octal mode from 0700 to 0777; using %04o", s,
            TAP_OUT_DIR_MODE_DEFAULT);
        m = TAP_OUT_DIR_MODE_DEFAULT;
    }
    return m;
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
    const char *why;
    int fd = outdir_open(dir, &why);
    if (fd < 0) {
        msg("cannot use the output directory %s: %s (%s)", dir, why, strerror(errno));
        free(dir);
        return NULL;
    }
    close(fd);
    return dir;
}

int outdir_open(const char *path, const char **why)
{
    return tap_out_dir_open(path, dir_mode(), why, NULL);
}

void outdir_set_run_id(char *id, size_t len)
{
    if (tap_run_id_of_launcher(id, len, getenv))
        return; /* the launcher's, which the shim finds too; or NCCLTAP_RUN_ID already */
    /* Started by hand: this command is the launch. */
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
    snprintf(id, len, "%s-%d", stamp, (int)getpid());
    setenv("NCCLTAP_RUN_ID", id, 1);
}
