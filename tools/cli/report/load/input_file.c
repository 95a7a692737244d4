#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

static const char *type_name(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFDIR: return "a directory";
    }
    return "not a plain file";
}

static int refuse(int err, char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(int err, char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    errno = err;
    return -1;
}

/* st is the file's; 0 when it may be read, else -1 with `why`. */
static int check_stat(const struct stat *st, uint64_t max_bytes, char *why, size_t why_len)
{
    if (!S_ISREG(st->st_mode))
        return refuse(EINVAL, why, why_len, "%s, not a regular file", type_name(st->st_mode));
    if ((uint64_t)st->st_size > max_bytes)
        return refuse(EFBIG, why, why_len, "%.1f GiB, over the limit of %.1f GiB for this kind of file",
                      (double)st->st_size / (1 << 30), (double)max_bytes / (1 << 30));
    return 0;
}

int input_open(const char *path, uint64_t max_bytes, char *why, size_t why_len)
{
    /* Looked at before opening, so that no device's open() runs; checked
     * again on the descriptor, in case the name was replaced in between.
     * O_NONBLOCK makes that open() of a FIFO return at once. */
    struct stat st;
    if (stat(path, &st) != 0) {
        int err = errno;
        return refuse(err, why, why_len, "%s", strerror(err));
    }
    if (check_stat(&st, max_bytes, why, why_len) != 0)
        return -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int err = errno;
        return refuse(err, why, why_len, "%s", strerror(err));
    }
    if (fstat(fd, &st) != 0 || check_stat(&st, max_bytes, why, why_len) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

int input_open_chosen(const char *path, uint64_t max_bytes, char *why, size_t why_len)
{
    /* Resolved first, so that "/tmp/x/../../dev/zero" and symlinks into
     * /dev are seen for what they are. */
    char resolved[PATH_MAX];
    if (!realpath(path, resolved)) {
        int err = errno;
        return refuse(err, why, why_len, "%s", strerror(err));
    }
    if (under(resolved, "/dev") || under(resolved, "/proc") || under(resolved, "/sys"))
        return refuse(EPERM, why, why_len, "%s is under /dev, /proc or /sys: not read", resolved);
    int fd = input_open(resolved, max_bytes, why, why_len);
    if (fd < 0)
        return -1;
    /* A directory swapped for a symlink after realpath() could still lead
     * there: the file system itself says where the file is. */
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0 || fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC) {
        close(fd);
        return refuse(EPERM, why, why_len, "on procfs or sysfs: not read");
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int err = errno;
        close(fd);
        return refuse(err, why, why_len, "%s", strerror(err));
    }
    return fd;
}
