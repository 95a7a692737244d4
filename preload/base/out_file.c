#include "base/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int create_at(int dirfd, const char *name, mode_t mode, int flags)
{
    int fd = openat(dirfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    /* Exactly `mode`, whatever the umask: 0644 must reach node_exporter. */
    if (fd >= 0 && fchmod(fd, mode) != 0) {
        int saved = errno;
        close(fd);
        unlinkat(dirfd, name, 0);
        errno = saved;
        return -1;
    }
    return fd;
}

int tap_out_file_create(int dirfd, const char *name, mode_t mode)
{
    return create_at(dirfd, name, mode, O_WRONLY | O_APPEND);
}

/* Unpredictable enough that nobody can plant the name in advance; O_EXCL
 * makes a collision an error, never a shared file. */
static uint64_t name_salt(void)
{
    uint64_t r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
        return r;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)&ts;
}

/* The stream's writes, through a cookie so that the errno of a write that
 * fails is kept: a full filesystem is said as ENOSPC, not as EIO. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t len)
{
    struct tap_out_file *o = cookie;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(o->fd, buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (!o->error)
                o->error = n < 0 ? errno : EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

static int cookie_close(void *cookie)
{
    struct tap_out_file *o = cookie;
    int rc = close(o->fd);
    if (rc != 0 && !o->error)
        o->error = errno;
    o->fd = -1;
    return rc;
}

FILE *tap_out_file_begin(struct tap_out_file *o, int dirfd, const char *name, mode_t mode)
{
    o->dirfd = dirfd;
    o->f = NULL;
    if ((size_t)snprintf(o->name, sizeof o->name, "%s", name) >= sizeof o->name) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 8; attempt++) {
        if ((size_t)snprintf(o->tmp, sizeof o->tmp, ".%s.%d.%016llx.tmp", name, (int)getpid(),
                             (unsigned long long)name_salt()) >= sizeof o->tmp) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        fd = create_at(dirfd, o->tmp, mode, O_WRONLY);
        if (fd < 0 && errno != EEXIST)
            return NULL;
    }
    if (fd < 0)
        return NULL;
    o->fd = fd;
    o->error = 0;
    o->f = fopencookie(o, "w", (cookie_io_functions_t){.write = cookie_write, .close = cookie_close});
    if (!o->f) {
        int saved = errno;
        close(fd);
        unlinkat(dirfd, o->tmp, 0);
        errno = saved;
    }
    return o->f;
}

int tap_out_file_commit(struct tap_out_file *o)
{
    bool failed = ferror(o->f) != 0;
    failed |= fclose(o->f) != 0;
    int err = failed ? (o->error ? o->error : EIO) : 0;
    o->f = NULL;
    if (!err && renameat(o->dirfd, o->tmp, o->dirfd, o->name) != 0)
        err = errno;
    if (err) {
        unlinkat(o->dirfd, o->tmp, 0);
        errno = err;
        return -1;
    }
    return 0;
}

void tap_out_file_abort(struct tap_out_file *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    unlinkat(o->dirfd, o->tmp, 0);
}

void tap_out_name_part(char *dst, size_t len, const char *src)
{
    if (!len)
        return;
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p && n + 1 < len; p++) {
        unsigned char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        dst[n++] = ok ? (char)c : '_';
    }
    if (!n && len > 1)
        dst[n++] = '_';
    dst[n] = '\0';
}
