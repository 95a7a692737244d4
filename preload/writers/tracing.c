/* The tracepoints themselves are defined here (their probes are in the
 * provider); this must precede the first inclusion of the provider header. */
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "writers/tracing.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "base/config.h"
#include "base/log.h"

#ifdef NCCLTAP_WITH_LTTNG
static bool is_socket(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* Where liblttng-ust 2.13 looks for a session daemon: the system-wide one,
 * and the user's under $LTTNG_HOME (default $HOME). */
static bool daemon_reachable(void)
{
    if (is_socket("/var/run/lttng/lttng-ust-sock-8"))
        return true;
    const char *home = getenv("LTTNG_HOME");
    if (!home || !*home)
        home = getenv("HOME");
    char path[4096];
    snprintf(path, sizeof path, "%s/.lttng/lttng-ust-sock-8", home ? home : "");
    return home && is_socket(path);
}

/* The provider sits next to the shim. */
static void load_provider(void)
{
    Dl_info self;
    char path[4096];
    if (!dladdr((void *)tap_tracing_start, &self) || !self.dli_fname) {
        tap_log("cannot locate libnccltap.so to find its LTTng provider: not tracing");
        return;
    }
    snprintf(path, sizeof path, "%s", self.dli_fname);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0),
             "libnccltap-lttng.so");
    if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL)) /* never closed */
        tap_log("NCCLTAP_LTTNG: cannot load %s (%s): not tracing", path, dlerror());
}

static void start_once(void)
{
    switch (tap_config.lttng) {
    case TAP_LTTNG_OFF:
        return;
    case TAP_LTTNG_AUTO:
        if (!daemon_reachable())
            return;
        /* fall through */
    case TAP_LTTNG_ON:
        load_provider();
    }
}
#else
static void start_once(void)
{
    if (tap_config.lttng == TAP_LTTNG_ON)
        tap_log("NCCLTAP_LTTNG=1, but this nccltap was built without liblttng-ust: not tracing");
}
#endif

void tap_tracing_start(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, start_once);
}
