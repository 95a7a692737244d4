/* `nccltap report [--json] [--run ID] [--debug-dir DIR]... PATH`: PATH is a
 * directory of per-rank files (of one run: the newest, or ID), or an LTTng
 * trace of the run (the directory `nccltap run --lttng` wrote, or any
 * directory with a CTF trace below it). */
#include "cli.h"
#include "crossrank.h"
#include "load.h"
#include "render.h"
#include "util.h"

#include <getopt.h>
#include <stdbool.h>

/* Where separate debug information is looked for besides /usr/lib/debug
 * (--debug-dir, repeatable). */
#define MAX_DEBUG_DIRS 16
static char *debug_dirs[MAX_DEBUG_DIRS];
static size_t ndebug_dirs;

static int report_path(const char *path, const char *run, bool json)
{
    struct report r;
    int loaded = report_path_is_trace(path) ? report_load_trace(path, &r) : report_load(path, run, &r);
    if (loaded != 0)
        return 1;
    report_symbolize(&r, debug_dirs, ndebug_dirs);
    struct crossrank cross;
    crossrank_analyze(&r, &cross);
    r.cross = &cross;
    int rc = json ? report_print_json(&r, stdout) : report_print_text(&r, stdout);
    crossrank_free(&cross);
    report_free(&r);
    if (rc != 0) {
        msg("cannot write the report");
        return 1;
    }
    return 0;
}

int report_dir_text(const char *dir)
{
    return report_path(dir, NULL, false);
}

int cmd_report(int argc, char **argv)
{
    enum { OPT_JSON = 0x100, OPT_RUN, OPT_DEBUG_DIR };
    static const struct option options[] = {
        { "json", no_argument, NULL, OPT_JSON },
        { "run", required_argument, NULL, OPT_RUN },
        { "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    bool json = false;
    const char *run = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        switch (c) {
        case OPT_JSON:
            json = true;
            break;
        case OPT_RUN:
            run = optarg;
            break;
        case OPT_DEBUG_DIR:
            if (ndebug_dirs == MAX_DEBUG_DIRS)
                return usage_error(argv[0], "takes at most 16 --debug-dir options");
            debug_dirs[ndebug_dirs++] = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            return usage_hint();
        }
    }
    if (argc - optind != 1)
        return usage_error(argv[0], "expects one directory or trace");
    return report_path(argv[optind], run, json);
}
