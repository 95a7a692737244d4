/* Which run of a directory the report reads. The shim names its files
 * nccltap-<run>@<host>-<pid>.json (preload/output/run_id.h), so runs are
 * told apart by name alone; files from before run ids (no '@') are one run
 * with the empty id. Temporary files (".nccltap-...tmp") never match the
 * rank-file pattern. */
#include "load.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

const char *report_run_of(const char *path, size_t *len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    base += strlen("nccltap-");
    const char *at = strchr(base, '@');
    *len = at ? (size_t)(at - base) : 0;
    return base;
}

static bool in_run(const char *path, const char *run)
{
    size_t len;
    const char *r = report_run_of(path, &len);
    return strlen(run) == len && strncmp(r, run, len) == 0;
}

size_t report_files_of_run(char *const *files, size_t n, const char *run)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += in_run(files[i], run);
    return k;
}

static time_t mtime_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_mtime : 0;
}

int report_keep_run(const char *dir, char **files, size_t *n, const char *wanted)
{
    /* The newest run: the one holding the most recently written file. */
    const char *pick = NULL;
    size_t pick_len = 0;
    time_t newest = 0;
    for (size_t i = 0; i < *n && !wanted; i++) {
        time_t t = mtime_of(files[i]);
        if (!pick || t > newest) {
            pick = report_run_of(files[i], &pick_len);
            newest = t;
        }
    }
    char *chosen = wanted ? xstrdup(wanted) : xasprintf("%.*s", (int)pick_len, pick ? pick : "");
    size_t kept = 0, others = 0;
    char *other_ids = xstrdup("");
    bool none_named = false;
    for (size_t i = 0; i < *n; i++) {
        if (in_run(files[i], chosen))
            continue;
        /* Each other run named once. The names are sorted, so a run's
         * files ("nccltap-<run>@...") are next to each other; files from
         * before run ids (the run "") may be anywhere. */
        size_t len;
        const char *r = report_run_of(files[i], &len);
        char *id = xasprintf("%.*s", (int)len, r);
        bool first = *id ? i == 0 || !in_run(files[i - 1], id) : !none_named;
        none_named |= !*id;
        if (first) {
            char *more = xasprintf("%s%s%s", other_ids, *other_ids ? ", " : "", *id ? id : "(none)");
            free(other_ids);
            other_ids = more;
            others++;
        }
        free(id);
    }
    for (size_t i = 0; i < *n; i++) {
        if (in_run(files[i], chosen))
            files[kept++] = files[i];
        else
            free(files[i]);
    }
    files[kept] = NULL;
    *n = kept;
    int rc = 0;
    if (wanted && kept == 0) {
        msg("no per-rank file of run %s in %s%s%s", wanted, dir, others ? "; runs there: " : "", other_ids);
        rc = -1;
    } else if (others) {
        msg("%s holds %zu other run%s (%s); reading %s run %s (--run ID for another)", dir, others,
            others == 1 ? "" : "s", other_ids, wanted ? "the" : "the newest", *chosen ? chosen : "(none)");
    }
    free(chosen);
    free(other_ids);
    return rc;
}
