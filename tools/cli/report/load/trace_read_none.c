/* trace_read_in_process() for an nccltap built without libbabeltrace2. */
#include "trace_events.h"
#include "util.h"

int trace_read_in_process(char *const *dirs, size_t n, tev_fn fn, void *data, struct trace_stats *stats,
                          char **error)
{
    (void)dirs;
    (void)n;
    (void)fn;
    (void)data;
    (void)stats;
    *error = xstrdup("this nccltap was built without libbabeltrace2, so it cannot read "
                     "LTTng traces (Debian/Ubuntu: apt-get install libbabeltrace2-dev, "
                     "then rebuild); report the directory of per-rank files instead");
    return -1;
}
