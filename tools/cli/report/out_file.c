/* Output files written whole or not at all (out_file.h). */
#include "out_file.h"
#include "util.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int out_file_write(const char *path, int (*write)(FILE *out, void *ctx), void *ctx)
{
    char *tmp = xasprintf("%s.XXXXXX", path);
    int fd = mkstemp(tmp);
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
    free(tmp);
    return rc;
}
