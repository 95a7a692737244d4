/* Finding the CTF traces at or below a path, and telling their runs apart. */
#include "trace_find.h"
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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

const char *trace_run_root(const char *dir, size_t *len)
{
    size_t n = strlen(dir);
    for (size_t i = n; i-- > 0;)
        if (strncmp(dir + i, "/ust/", 5) == 0 || strcmp(dir + i, "/ust") == 0 ||
            strcmp(dir + i, "/kernel") == 0) {
            *len = i;
            return dir;
        }
    *len = n;
    return dir;
}

static time_t metadata_mtime(const char *dir)
{
    char *path = xasprintf("%s/metadata", dir);
    struct stat st;
    time_t t = stat(path, &st) == 0 ? st.st_mtime : 0;
    free(path);
    return t;
}

static bool same_root(const char *a, const char *b)
{
    size_t la, lb;
    trace_run_root(a, &la);
    trace_run_root(b, &lb);
    return la == lb && strncmp(a, b, la) == 0;
}

char *trace_dirs_keep_newest(char **dirs, size_t *n, size_t *others)
{
    size_t pick = 0;
    time_t newest = 0;
    for (size_t i = 0; i < *n; i++) {
        time_t t = metadata_mtime(dirs[i]);
        if (i == 0 || t > newest) {
            pick = i;
            newest = t;
        }
    }
    char *names = NULL;
    *others = 0;
    for (size_t i = 0; i < *n; i++) {
        /* Sorted: a run's directories are next to each other. */
        if (same_root(dirs[i], dirs[pick]) || (i > 0 && same_root(dirs[i], dirs[i - 1])))
            continue;
        size_t len;
        const char *root = trace_run_root(dirs[i], &len);
        char *more = xasprintf("%s%s%.*s", names ? names : "", names ? ", " : "", (int)len, root);
        free(names);
        names = more;
        (*others)++;
    }
    char *chosen = dirs[pick];
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        if (same_root(dirs[i], chosen))
            dirs[kept++] = dirs[i];
        else
            free(dirs[i]);
    }
    dirs[kept] = NULL;
    *n = kept;
    return names;
}
