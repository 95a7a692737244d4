#include "writers/prom_stale.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/out_dir.h"
#include "base/out_file.h"
#include "writers/output.h"
#include "writers/prom_file.h"
#include "writers/prom_owner.h"

#define PREFIX "nccltap_"
#define SUFFIX ".prom"

/* Whether the file `name` in `dir` is a regular file of this user whose
 * first line is `mark`. Opened without following a symlink and without
 * blocking (a FIFO planted under the name). */
static bool marked_ours(int dir, const char *name, const char *mark)
{
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    char head[256];
    size_t want = strlen(mark);
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && want < sizeof head)
        n = pread(fd, head, want, 0);
    close(fd);
    return n == (ssize_t)want && memcmp(head, mark, want) == 0;
}

/* The lock of the GPU name nccltap_<part>.prom, when it has one (only the
 * names of GPUs do: prom_file.c, lock_gpu_name): the descriptor holding
 * it, or -1 when there is no lock file (nothing to hold), or -2 when
 * another process holds it (then that process owns the name). */
static int hold_name(int dir, const char *name)
{
    size_t len = strlen(name) - strlen(PREFIX) - strlen(SUFFIX);
    char lock[TAP_OUT_NAME_MAX];
    if ((size_t)snprintf(lock, sizeof lock, "." PREFIX "%.*s.lock", (int)len, name + strlen(PREFIX)) >= sizeof lock)
        return -2;
    int fd = openat(dir, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? -1 : -2;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return -2;
    }
    return fd;
}

static bool prom_name(const char *name)
{
    size_t n = strlen(name);
    return n > strlen(PREFIX) + strlen(SUFFIX) && !strncmp(name, PREFIX, strlen(PREFIX)) &&
           !strcmp(name + n - strlen(SUFFIX), SUFFIX);
}

void tap_prom_remove_earlier_image(void)
{
    if (!tap_prom_enabled() || tap_config.prom_keep || !tap_output_after_exec())
        return;
    const char *mark = tap_prom_owner_mark();
    const char *why;
    int dir = *mark ? tap_out_dir_open_existing(tap_config.prom_dir, &why) : -1;
    DIR *d = dir >= 0 ? fdopendir(dir) : NULL;
    if (!d) {
        if (dir >= 0)
            close(dir);
        return; /* no directory: the earlier image wrote nothing there */
    }
    unsigned removed = 0, kept = 0;
    int err = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!prom_name(e->d_name) || !marked_ours(dirfd(d), e->d_name, mark))
            continue;
        int held = hold_name(dirfd(d), e->d_name);
        /* Another process holds the GPU's name: it owns the name now, and
         * its next write replaces the file. Otherwise read again under
         * the lock: the name may have been replaced before it was taken. */
        if (held != -2 && marked_ours(dirfd(d), e->d_name, mark)) {
            if (unlinkat(dirfd(d), e->d_name, 0) == 0) {
                removed++;
            } else {
                kept++;
                err = errno;
            }
        }
        if (held >= 0)
            close(held);
    }
    closedir(d);
    if (kept)
        tap_log("NCCLTAP_PROM_DIR=%s: %u Prometheus file%s of this process's image before exec() could not be "
                "removed (%s): node_exporter serves the ended image's values as live until removed by hand",
                tap_config.prom_dir, kept, kept == 1 ? "" : "s", strerror(err));
    else if (removed && tap_config.verbose)
        tap_log("NCCLTAP_PROM_DIR=%s: %u Prometheus file%s of this process's image before exec() removed",
                tap_config.prom_dir, removed, removed == 1 ? "" : "s");
}
