#include "paths.h"
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Library directories relative to bin/, most likely first. The build tree
 * always uses lib/; an install uses CMAKE_INSTALL_LIBDIR, which is lib64 or
 * lib/<multiarch> on some systems. */
static const char *const libdir_candidates[] = { "../lib", NCCLTAP_LIBDIR_FROM_BINDIR };

static char *self_dir(char *why, size_t why_len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0) {
        snprintf(why, why_len, "cannot read /proc/self/exe: %s", strerror(errno));
        return NULL;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) {
        snprintf(why, why_len, "unexpected executable path %s", exe);
        return NULL;
    }
    *slash = '\0';
    return xstrdup(exe[0] ? exe : "/");
}

int paths_find(struct nccltap_paths *p, char *why, size_t why_len)
{
    memset(p, 0, sizeof *p);
    p->bindir = self_dir(why, why_len);
    if (!p->bindir)
        return -1;
    /* The first candidate that holds the shim; when none does, the first
     * one, so that the error about the missing shim names the usual place. */
    char *libdir = NULL;
    size_t ncand = sizeof libdir_candidates / sizeof libdir_candidates[0];
    for (size_t i = 0; i < ncand && !libdir; i++) {
        char *dir = xasprintf("%s/%s", p->bindir, libdir_candidates[i]);
        char *shim = xasprintf("%s/libnccltap.so", dir);
        if (path_exists(shim))
            libdir = dir;
        else
            free(dir);
        free(shim);
    }
    if (!libdir)
        libdir = xasprintf("%s/%s", p->bindir, libdir_candidates[0]);
    /* Resolve ".." so that LD_PRELOAD and messages show a plain path. */
    char real[PATH_MAX];
    if (realpath(libdir, real)) {
        free(libdir);
        libdir = xstrdup(real);
    }
    p->shim = xasprintf("%s/libnccltap.so", libdir);
    p->lttng_provider = xasprintf("%s/libnccltap-lttng.so", libdir);
    p->sim = xasprintf("%s/" NCCLTAP_SIM_SUBDIR, libdir);
    p->sim_legacy = xasprintf("%s/" NCCLTAP_SIM_LEGACY_SUBDIR, libdir);
    p->python = xasprintf("%s/" NCCLTAP_PYTHON_SUBDIR, libdir);
    p->bench = xasprintf("%s/nccltap-bench", p->bindir);
    free(libdir);
    return 0;
}

void paths_free(struct nccltap_paths *p)
{
    free(p->bindir);
    free(p->shim);
    free(p->lttng_provider);
    free(p->sim);
    free(p->sim_legacy);
    free(p->python);
    free(p->bench);
    memset(p, 0, sizeof *p);
}

char *path_absolute(const char *path)
{
    if (path[0] == '/')
        return xstrdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return xstrdup(path);  /* nothing better: the caller's messages show it as given */
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    if (strcmp(path, ".") == 0 || path[0] == '\0')
        return xstrdup(cwd);
    return xasprintf("%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", path);
}

int mkdir_p(const char *path)
{
    if (path[0] == '\0') {
        errno = ENOENT;
        return -1;
    }
    char *buf = xstrdup(path);
    int rc = 0;
    /* Each prefix in turn; EEXIST is fine (another rank may create the
     * same directory at the same moment). */
    for (char *s = buf + 1; rc == 0; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            rc = -1;
        *s = c;
        if (c == '\0')
            break;
    }
    if (rc == 0) {
        struct stat st;
        if (stat(path, &st) != 0)
            rc = -1;
        else if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            rc = -1;
        }
    }
    int saved = errno;
    free(buf);
    errno = saved;
    return rc;
}

int path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return (type == FTW_DP ? rmdir(path) : unlink(path)) == 0 || errno == ENOENT ? 0 : -1;
}

int remove_tree(const char *path)
{
    /* Depth first, so that a directory is empty when it is removed. */
    return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
