/* `nccltap report --perfetto OUT.json [--from S] [--to S] [--ranks LIST]`:
 * the analyses the timeline needs, then the file, written whole or not at
 * all: a temporary file beside it, made under a new unique name (mkstemp:
 * O_CREAT | O_EXCL, so never through a link someone planted there), then
 * renamed over OUT.json. */
#include "os_interference.h"
#include "perfetto_cmd.h"
#include "render.h"
#include "timeline.h"
#include "util.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int parse_rank_list(const char *s, int **ranks, size_t *n)
{
    *ranks = NULL;
    *n = 0;
    while (*s) {
        char *end;
        long lo = strtol(s, &end, 10), hi = lo;
        if (end == s || lo < 0)
            goto bad;
        if (*end == '-') {
            s = end + 1;
            hi = strtol(s, &end, 10);
            if (end == s || hi < lo || hi - lo > 1 << 20)
                goto bad;
        }
        for (long r = lo; r <= hi; r++) {
            *ranks = xrealloc(*ranks, (*n + 1) * sizeof **ranks);
            (*ranks)[(*n)++] = (int)r;
        }
        if (*end == ',')
            end++;
        else if (*end)
            goto bad;
        s = end;
    }
    if (*n)
        return 0;
bad:
    free(*ranks);
    *ranks = NULL;
    *n = 0;
    return -1;
}

/* The directory `path` is in: a malloc'ed string. */
static char *dir_of(const char *path)
{
    char *copy = xstrdup(path);
    char *dir = xstrdup(dirname(copy));
    free(copy);
    return dir;
}

bool perfetto_dir_writable(const char *argv0, const char *path)
{
    char *dir = dir_of(path);
    bool ok = access(dir, W_OK | X_OK) == 0;
    if (!ok)
        fprintf(stderr, "%s: --perfetto %s: cannot write in directory %s: %s (give a file in a directory "
                "you can write in)\n", argv0, path, dir, strerror(errno));
    free(dir);
    return ok;
}

int report_perfetto(const struct report *r, const char *path, const struct tl_options *o)
{
    struct os_interference os;
    os_interference_analyze(r, &os);
    struct timeline t;
    timeline_build(r, &os, o, &t);
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
    } else {
        rc = report_write_perfetto(r, &t, out);
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
    }
    if (rc == 0)
        msg("Perfetto trace in %s: %zu events (open it in ui.perfetto.dev or chrome://tracing)",
            path, t.nevents);
    free(tmp);
    timeline_free(&t);
    os_interference_free(&os);
    return rc;
}
