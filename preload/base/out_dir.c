#include "base/out_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* As the kernel's own limit on symlinks in one lookup (MAXSYMLINKS). */
#define MAX_SYMLINKS 40

static int trusted_owner(uid_t uid)
{
    return uid == geteuid() || uid == 0;
}

/* Whether others than its owner may replace what the directory holds: not
 * when the sticky bit keeps them from removing or renaming files they do
 * not own. */
static int others_may_replace(mode_t mode)
{
    return (mode & S_IWOTH) && !(mode & S_ISVTX);
}

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
    if (!trusted_owner(st.st_uid)) {
        *why = "owned by another user";
        errno = EPERM;
        return -1;
    }
    if (others_may_replace(st.st_mode)) {
        *why = "writable by others and not sticky";
        errno = EPERM;
        return -1;
    }
    return 0;
}

static void close_keeping_errno(int fd)
{
    int saved = errno;
    close(fd);
    errno = saved;
}

/* Opens the directory `name` in `at`, never through a symlink, creating it
 * with exactly `mode` when missing (unless `make` is false: ENOENT). -1
 * with errno and *why on failure; ENOTDIR or ELOOP when `name` is a
 * symlink or not a directory. */
static int open_or_make(int at, const char *name, mode_t mode, bool make, int last, int *created,
                        const char **why)
{
    int fd = openat(at, name, DIR_FLAGS);
    if (fd < 0 && errno == ENOENT && make) {
        int made = mkdirat(at, name, mode) == 0;
        if (!made && errno != EEXIST) { /* EEXIST: another rank was first */
            *why = "cannot create it";
            return -1;
        }
        fd = openat(at, name, DIR_FLAGS);
        if (fd >= 0 && made && last && created)
            *created = 1;
        /* Exactly the mode asked for, not what the umask left of it. Only
         * what this call made: an existing directory keeps its owner's mode. */
        if (fd >= 0 && made && fchmod(fd, mode) != 0) {
            *why = "cannot set its mode";
            close_keeping_errno(fd);
            return -1;
        }
    }
    if (fd < 0 && (errno == ENOTDIR || errno == ELOOP))
        *why = last ? "a symlink or not a directory" : "above it, a file that is not a directory";
    else if (fd < 0)
        *why = "cannot open it";
    return fd;
}

/* The rule for a symlink above the output directory (out_dir.h): it and
 * the directory `at` holding it owned by root or us, and nobody else able
 * to replace it there. 0, or -1 with errno (EPERM) and *why. */
static int symlink_trusted(int at, const struct stat *link, const char **why)
{
    struct stat dir;
    if (fstat(at, &dir) != 0) {
        *why = "cannot stat a directory above it";
        return -1;
    }
    errno = EPERM;
    if (!trusted_owner(dir.st_uid)) {
        *why = "above it, a symlink in a directory another user owns";
        return -1;
    }
    if (others_may_replace(dir.st_mode)) {
        *why = "above it, a symlink in a directory others can write in, not sticky";
        return -1;
    }
    if (!trusted_owner(link->st_uid)) {
        *why = "above it, a symlink owned by another user";
        return -1;
    }
    return 0;
}

/* Replaces, in `path` (room PATH_MAX), the symlink component `name` by its
 * target: `rest` is what followed it. Returns 0, or -1 with errno. */
static int expand_symlink(int at, const char *name, const char *rest, char *path, const char **why)
{
    char target[PATH_MAX];
    ssize_t n = readlinkat(at, name, target, sizeof target);
    if (n < 0 || (size_t)n >= sizeof target) {
        *why = "cannot read a symlink above it";
        if (n >= 0)
            errno = ENAMETOOLONG;
        return -1;
    }
    size_t rest_len = strlen(rest);
    if ((size_t)n + 1 + rest_len >= PATH_MAX) {
        *why = "path too long";
        errno = ENAMETOOLONG;
        return -1;
    }
    memmove(path + n + 1, rest, rest_len + 1); /* rest may lie in path */
    memcpy(path, target, (size_t)n);
    path[n] = '/';
    return 0;
}

/* Follows the symlink `name` in `at` when the rule allows it: its target
 * replaces it at the start of `buf`, before `*rest`, and *rest becomes
 * `buf`. Returns `at` to go on from (a relative target), a descriptor of
 * the root (an absolute one), or -1 with errno and *why. */
static int follow_symlink(int at, const char *name, const struct stat *link, char **rest, char *buf,
                          int *symlinks, const char **why)
{
    if (++*symlinks > MAX_SYMLINKS) {
        *why = "too many symlinks above it";
        errno = ELOOP;
        return -1;
    }
    if (symlink_trusted(at, link, why) != 0 || expand_symlink(at, name, *rest, buf, why) != 0)
        return -1;
    *rest = buf;
    if (buf[0] != '/')
        return at;
    int root = open("/", DIR_FLAGS);
    if (root < 0)
        *why = "cannot open /";
    return root;
}

/* The next component of `*rest` (slashes skipped), cut off in place, or
 * NULL at the end; *rest moves past it. */
static char *next_component(char **rest)
{
    char *name = *rest;
    while (*name == '/')
        name++;
    if (!*name)
        return NULL;
    char *end = strchr(name, '/');
    if (end)
        *end++ = '\0';
    else
        end = name + strlen(name);
    while (*end == '/')
        end++;
    *rest = end;
    return name;
}

static int open_dir(const char *path, mode_t mode, bool make, const char **why, int *created)
{
    if (created)
        *created = 0;
    char buf[PATH_MAX];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf) {
        *why = len ? "path too long" : "empty path";
        errno = len ? ENAMETOOLONG : ENOENT;
        return -1;
    }
    memcpy(buf, path, len + 1);
    int at = open(buf[0] == '/' ? "/" : ".", DIR_FLAGS);
    if (at < 0) {
        *why = "cannot open its parent";
        return -1;
    }
    int symlinks = 0;
    char *rest = buf, *name;
    while ((name = next_component(&rest)) != NULL) {
        int last = !*rest;
        int fd = open_or_make(at, name, mode, make, last, created, why);
        struct stat st;
        if (fd < 0 && !last && (errno == ENOTDIR || errno == ELOOP) &&
            fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
            fd = follow_symlink(at, name, &st, &rest, buf, &symlinks, why);
            if (fd == at)
                continue; /* a relative target: read on from the same directory */
        }
        close_keeping_errno(at);
        if (fd < 0)
            return -1;
        at = fd;
    }
    if (tap_out_dir_check(at, why) != 0) {
        close_keeping_errno(at);
        return -1;
    }
    return at;
}

int tap_out_dir_open(const char *path, mode_t mode, const char **why, int *created)
{
    return open_dir(path, mode, true, why, created);
}

int tap_out_dir_open_existing(const char *path, const char **why)
{
    return open_dir(path, 0, false, why, NULL);
}

const char *tap_out_mode_refusal(const char *s, mode_t *mode)
{
    if (!s || !*s || strlen(s) > 4 || strspn(s, "01234567") != strlen(s))
        return "not an octal number of at most 4 digits";
    unsigned v = 0;
    for (const char *p = s; *p; p++)
        v = v * 8 + (unsigned)(*p - '0');
    if (v > 0777)
        return "set-id and sticky bits are not accepted";
    if ((v & 0700) != 0700)
        return "the owner needs rwx to use the directories nccltap makes";
    /* What tap_out_dir_check() would refuse once made: said now, once,
     * rather than as "no output is written" after the directories exist. */
    if (others_may_replace(v))
        return "others could write in the directories nccltap makes, and nccltap does not write in "
               "such a directory";
    *mode = (mode_t)v;
    return NULL;
}

int tap_out_parse_mode(const char *s, mode_t *mode)
{
    return tap_out_mode_refusal(s, mode) ? -1 : 0;
}
