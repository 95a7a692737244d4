#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

static int not_regular(mode_t mode, char *why, size_t why_len)
{
    snprintf(why, why_len, "%s, not a regular file", type_name(mode));
    errno = EINVAL;
    return -1;
}

int input_open(const char *path, char *why, size_t why_len)
{
    /* Looked at before opening, so that no device's open() runs; checked
     * again on the descriptor, in case the name was replaced in between.
     * O_NONBLOCK makes that open() of a FIFO return at once. */
    struct stat st;
    if (stat(path, &st) != 0) {
        int err = errno;
        snprintf(why, why_len, "%s", strerror(err));
        errno = err;
        return -1;
    }
    if (!S_ISREG(st.st_mode))
        return not_regular(st.st_mode, why, why_len);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(why, why_len, "%s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return not_regular(st.st_mode, why, why_len);
    }
    return fd;
}
