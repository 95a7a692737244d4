#include "base/out_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tap_out_dir_check(int dirfd, const char **why)
{
    struct stat st;
    if (fstat(dirfd, &st) != 0) {
        *why = "cannot stat it";
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        *why = "not a directory";
        errno = ENOTDIR;
        return -1;
    }
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        *why = "owned by another user";
        errno = EPERM;
        return -1;
    }
    /* Others could replace our files there, unless the sticky bit keeps
     * them from removing or renaming files they do not own. */
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
        *why = "writable by others and not sticky";
        errno = EPERM;
        return -1;
    }
    return 0;
}

/* Opens (creating when missing) the component `name` of the directory
 * `at`; the last component must not be a symlink. */
static int open_component(int at, const char *name, mode_t mode, int last, const char **why, int *created)
{
    int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (last ? O_NOFOLLOW : 0);
    int fd = openat(at, name, flags);
    if (fd >= 0 || errno != ENOENT)
        goto opened;
    int made = mkdirat(at, name, mode) == 0;
    if (!made && errno != EEXIST) { /* EEXIST: another rank was first */
        *why = "cannot create it";
        return -1;
    }
    fd = openat(at, name, flags);
    if (fd >= 0 && made && last && created)
        *created = 1;
    /* Exactly the mode asked for, not what the umask left of it. Only
     * what this call made: an existing directory keeps its owner's mode. */
    if (fd >= 0 && made && fchmod(fd, mode) != 0) {
        *why = "cannot set its mode";
        close(fd);
        return -1;
    }
opened:
    if (fd < 0)
        *why = errno == ELOOP || errno == ENOTDIR ? "a symlink or not a directory" : "cannot open it";
    return fd;
}

int tap_out_dir_open(const char *path, mode_t mode, const char **why, int *created)
{
    if (created)
        *created = 0;
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf) {
        *why = len ? "path too long" : "empty path";
        errno = len ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    memcpy(buf, path, len + 1);
    while (len > 1 && buf[len - 1] == '/') /* "dir/" is "dir" */
        buf[--len] = '\0';
    int at = open(buf[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (at < 0) {
        *why = "cannot open its parent";
        return -1;
    }
    if (!strcmp(buf, "/")) /* the root itself: the rule decides */
        goto check;
    for (char *name = buf, *end; *name; name = end) {
        while (*name == '/')
            name++;
        end = strchr(name, '/');
        int last = !end;
        if (end) {
            *end++ = '\0';
            while (*end == '/')
                end++;
            last = !*end;
        } else {
            end = name + strlen(name);
        }
        int fd = open_component(at, name, mode, last, why, created);
        int saved = errno;
        close(at);
        if (fd < 0) {
            errno = saved;
            return -1;
        }
        at = fd;
    }
check:
    if (tap_out_dir_check(at, why) != 0) {
        int saved = errno;
        close(at);
        errno = saved;
        return -1;
    }
    return at;
}

int tap_out_parse_mode(const char *s, mode_t *mode)
{
    if (!s || !*s || strlen(s) > 4)
        return -1;
    unsigned v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '7')
            return -1;
        v = v * 8 + (unsigned)(*p - '0');
    }
    if (v > 0777 || (v & 0700) != 0700)
        return -1;
    *mode = (mode_t)v;
    return 0;
}
