#include "outdir.h"
#include "base/out_dir.h"
#include "paths.h"
#include "base/run_id.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static char *default_name(void)
{
    const char *job = getenv("SLURM_JOB_ID");
    if (job && *job) {
        char name[TAP_JOB_DIR_ID_MAX + 16];
        tap_job_dir_name(name, sizeof name, job);
        return xstrdup(name);
    }
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    return xasprintf("nccltap-%s", stamp);
}

/* NCCLTAP_DIR_MODE as the shim reads it: a refused value is said once,
 * with the reason, and 0700 used. */
static mode_t dir_mode(void)
{
    static int read;
    static mode_t m = TAP_OUT_DIR_MODE_DEFAULT;
    if (read)
        return m;
    read = 1;
    const char *s = getenv("NCCLTAP_DIR_MODE");
    const char *why = s && *s ? tap_out_mode_refusal(s, &m) : NULL;
    if (why)
        msg("NCCLTAP_DIR_MODE=%s is not valid: %s; expected " TAP_OUT_DIR_MODES_ACCEPTED "; using %04o", s, why,
            TAP_OUT_DIR_MODE_DEFAULT);
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

/* Below this, a rank file (tens of KiB) may not have fitted. */
#define NEARLY_FULL_BYTES (64 * 1024)

const char *outdir_why_unwritten(const char *dir, char *buf, size_t len)
{
    struct statvfs fs;
    if (statvfs(dir, &fs) == 0 && (fs.f_flag & ST_RDONLY))
        return "nccltap cannot write there (its filesystem is read-only)";
    /* As the shim runs: with the effective ids. */
    if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0) {
        snprintf(buf, len, "nccltap cannot write there (%s)", strerror(errno));
        return buf;
    }
    if (statvfs(dir, &fs) != 0)
        return NULL;
    /* Root may use the blocks reserved for it; others only the available. */
    unsigned long long blocks = geteuid() == 0 ? fs.f_bfree : fs.f_bavail;
    unsigned long long free_bytes = blocks * fs.f_frsize;
    if (free_bytes < NEARLY_FULL_BYTES) {
        snprintf(buf, len, "its filesystem is full (%llu KiB free)", free_bytes / 1024);
        return buf;
    }
    if (fs.f_files > 0 && fs.f_favail == 0)
        return "its filesystem has no free inode left";
    return NULL;
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
