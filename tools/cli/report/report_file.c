/* Output files written whole or not at all (report_file.h). */
#include "report_file.h"
#include "util.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The signals that end the process while a file is written: asked to
 * (INT, TERM, HUP, QUIT), past a limit (XFSZ: RLIMIT_FSIZE, XCPU), or a
 * crash (SEGV, BUS, ABRT: also xmalloc's, FPE, ILL). */
static const int ending[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ, SIGXCPU,
                              SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
#define NENDING (sizeof ending / sizeof ending[0])

/* The temporary file being written, and the handlers it displaced: one at
 * a time, on the command's one thread. */
static const char *volatile pending;
static struct sigaction displaced[NENDING];

/* Removes the temporary file, then lets the signal do what it did before
 * (the default: end the process; a sanitizer's: report, then end it). */
static void remove_pending(int sig)
{
    if (pending)
        unlink(pending);  /* async-signal-safe */
    for (size_t i = 0; i < NENDING; i++)
        if (ending[i] == sig)
            sigaction(sig, &displaced[i], NULL);
    raise(sig);  /* delivered once this returns; a fault also recurs */
}

static void guard(const char *tmp)
{
    struct sigaction sa = { .sa_handler = remove_pending };
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NENDING; i++)
        sigaddset(&sa.sa_mask, ending[i]);  /* one handler at a time */
    pending = tmp;
    for (size_t i = 0; i < NENDING; i++)
        sigaction(ending[i], &sa, &displaced[i]);
}

static void unguard(void)
{
    for (size_t i = 0; i < NENDING; i++)
        sigaction(ending[i], &displaced[i], NULL);
    pending = NULL;
}

/* The directory `path` is in: a malloc'ed string. */
static char *dir_of(const char *path)
{
    char *copy = xstrdup(path);
    char *dir = xstrdup(dirname(copy));
    free(copy);
    return dir;
}

bool out_dir_writable(const char *argv0, const char *option, const char *path)
{
    char *dir = dir_of(path);
    bool ok = access(dir, W_OK | X_OK) == 0;
    if (!ok)
        fprintf(stderr, "%s: %s %s: cannot write in directory %s: %s (give a file in a directory "
                "you can write in)\n", argv0, option, path, dir, strerror(errno));
    free(dir);
    return ok;
}

/* Writes to `path` as it is: a device, a pipe or a link, which a rename
 * would replace (`-o /dev/null` as root made /dev/null a file). */
static int write_in_place(const char *path, int (*write)(FILE *out, void *ctx), void *ctx)
{
    FILE *out = fopen(path, "w");
    if (!out) {
        msg("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = write(out, ctx);
    if (fclose(out) != 0)
        rc = -1;
    if (rc != 0)
        msg("cannot write %s", path);
    return rc;
}

int out_file_write(const char *path, int (*write)(FILE *out, void *ctx), void *ctx)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return write_in_place(path, write, ctx);
    char *tmp = xasprintf("%s.XXXXXX", path);
    /* From its making to its renaming or removal, a signal that ends the
     * process removes it too: blocked until the name is known. */
    sigset_t block, before;
    sigemptyset(&block);
    for (size_t i = 0; i < NENDING; i++)
        sigaddset(&block, ending[i]);
    sigprocmask(SIG_BLOCK, &block, &before);
    int fd = mkstemp(tmp);
    if (fd >= 0)
        guard(tmp);
    sigprocmask(SIG_SETMASK, &before, NULL);
    FILE *out = fd < 0 ? NULL : fdopen(fd, "w");
    int rc = -1;
    if (!out) {
        int err = errno;
        char *dir = dir_of(path);
        msg("cannot write %s: cannot create a file in %s: %s", path, dir, strerror(err));
        free(dir);
        if (fd >= 0) {
            close(fd);
            remove(tmp);
            unguard();
        }
        free(tmp);
        return -1;
    }
    rc = write(out, ctx);
    if (fclose(out) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0) {
        msg("cannot rename %s to %s: %s", tmp, path, strerror(errno));
        rc = -1;
    } else if (rc != 0) {
        msg("cannot write %s", tmp);
    }
    if (rc != 0)
        remove(tmp);
    unguard();
    free(tmp);
    return rc;
}
