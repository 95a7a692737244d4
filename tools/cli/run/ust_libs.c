#include "ust_libs.h"
#include "paths.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* lttng-ust's libdir as pkg-config gave it at build time, when it did. */
#ifndef NCCLTAP_LTTNG_UST_LIBDIR
#define NCCLTAP_LTTNG_UST_LIBDIR ""
#endif
/* The multiarch directory name (x86_64-linux-gnu), when CMake knows it. */
#ifndef NCCLTAP_LIBRARY_ARCH
#define NCCLTAP_LIBRARY_ARCH ""
#endif

/* `name`.1 or `name` in dir[0..len): the runtime package has only the
 * versioned name; the -dev one adds the plain one. */
static char *in_dir(const char *dir, size_t len, const char *name)
{
    if (len == 0)
        return NULL;
    const char *const suffixes[] = { ".1", "" };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char *path = xasprintf("%.*s/%s%s", (int)len, dir, name, suffixes[i]);
        if (path_exists(path))
            return path;
        free(path);
    }
    return NULL;
}

char *ust_library(const char *name)
{
    /* The dynamic linker's order: LD_LIBRARY_PATH first. */
    const char *llp = getenv("LD_LIBRARY_PATH");
    for (const char *d = llp; d && *d;) {
        size_t n = strcspn(d, ":");
        char *path = in_dir(d, n, name);
        if (path)
            return path;
        d += n + (d[n] == ':');
    }
    const char *arch = NCCLTAP_LIBRARY_ARCH;
    char *system_dirs[] = {
        xstrdup(NCCLTAP_LTTNG_UST_LIBDIR),
        arch[0] ? xasprintf("/usr/lib/%s", arch) : xstrdup(""),
        arch[0] ? xasprintf("/lib/%s", arch) : xstrdup(""),
        xstrdup("/usr/lib64"),
        xstrdup("/usr/lib"),
        xstrdup("/usr/local/lib"),
    };
    size_t ndirs = sizeof system_dirs / sizeof system_dirs[0];
    char *found = NULL;
    for (size_t i = 0; i < ndirs; i++) {
        if (!found)
            found = in_dir(system_dirs[i], strlen(system_dirs[i]), name);
        free(system_dirs[i]);
    }
    return found;
}
