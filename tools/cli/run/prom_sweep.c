#include "prom_sweep.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether `name` is nccltap_<part>.prom; its lock's name into lock[]. */
static bool prom_name(const char *name, char *lock, size_t n)
{
    size_t len = strlen(name);
    if (strncmp(name, "nccltap_", 8) != 0 || len <= 13 || strcmp(name + len - 5, ".prom") != 0)
        return false;
    return snprintf(lock, n, ".nccltap_%.*s.lock", (int)(len - 13), name + 8) < (int)n;
}

/* Whether `name` is a writer's temporary file of nccltap_<part>.prom,
 * .nccltap_<part>.prom.<pid>.<16 hex digits>.tmp (preload/base/out_file.c):
 * left by a rank killed between writing it and renaming it into place;
 * its lock's name into lock[]. */
static bool prom_tmp_name(const char *name, char *lock, size_t n)
{
    size_t len = strlen(name);
    const char *prom = strstr(name, ".prom.");
    if (strncmp(name, ".nccltap_", 9) != 0 || len < 4 || strcmp(name + len - 4, ".tmp") != 0 || !prom ||
        prom <= name + 9)
        return false;
    return snprintf(lock, n, ".nccltap_%.*s.lock", (int)(prom - (name + 9)), name + 9) < (int)n;
}

/* Whether nobody holds `lock` in `dir`: taken here and let go at once. A
 * file with no lock at all was not written by a shim that locks: left. */
static bool lock_free(int dir, const char *lock)
{
    int fd = openat(dir, lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    bool free_ = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return free_;
}

unsigned prom_sweep(void)
{
    const char *path = getenv("NCCLTAP_PROM_DIR"), *keep = getenv("NCCLTAP_PROM_KEEP");
    if (!path || !path[0] || (keep && !strcmp(keep, "1")))
        return 0;
    int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dir >= 0 ? fdopendir(dir) : NULL;
    if (!d) {
        if (dir >= 0)
            close(dir);
        return 0;
    }
    unsigned removed = 0;
    struct dirent *e;
    char lock[NAME_MAX + 16];
    while ((e = readdir(d))) {
        struct stat st;
        if (!(prom_name(e->d_name, lock, sizeof lock) || prom_tmp_name(e->d_name, lock, sizeof lock)) ||
            fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode) || st.st_uid != geteuid() || !lock_free(dir, lock))
            continue;
        removed += unlinkat(dir, e->d_name, 0) == 0;
    }
    closedir(d);
    if (removed)
        msg("removed %u Prometheus file%s from NCCLTAP_PROM_DIR=%s that ended processes left (killed before "
            "they could remove their own)", removed, removed == 1 ? "" : "s", path);
    return removed;
}
