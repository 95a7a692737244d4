#include "trace_find.h"
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* nftw's callback has no user argument: the walk in progress. */
static struct {
    char **dirs;
    size_t n, cap;
} walk;

static void add(const char *dir, size_t len)
{
    if (walk.n + 1 >= walk.cap) {
        walk.cap = walk.cap ? 2 * walk.cap : 8;
        walk.dirs = xrealloc(walk.dirs, walk.cap * sizeof *walk.dirs);
    }
    walk.dirs[walk.n++] = xasprintf("%.*s", (int)len, dir);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    const char *base = path + ftw->base;
    if (type == FTW_F && S_ISREG(st->st_mode) && strcmp(base, "metadata") == 0) {
        if (ftw->base > 0)
            add(path, (size_t)ftw->base - 1);  /* without the slash */
        else
            add(".", 1);  /* `path` was "metadata" */
    }
    return FTW_CONTINUE;
}

char **trace_dirs_find(const char *path, size_t *n)
{
    /* add() keeps room for the NULL at the end. */
    walk.cap = 8;
    walk.dirs = xcalloc(walk.cap, sizeof *walk.dirs);
    walk.n = 0;
    *n = 0;
    int rc = nftw(path, visit, 32, FTW_PHYS | FTW_ACTIONRETVAL);
    walk.dirs[walk.n] = NULL;
    if (rc != 0) {
        int e = errno;
        trace_dirs_free(walk.dirs);
        errno = e;
        return NULL;
    }
    qsort(walk.dirs, walk.n, sizeof *walk.dirs, cmp_cstr);
    *n = walk.n;
    return walk.dirs;
}

void trace_dirs_free(char **dirs)
{
    for (char **d = dirs; d && *d; d++)
        free(*d);
    free(dirs);
}
