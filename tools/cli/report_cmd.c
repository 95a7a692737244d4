/* `nccltap report [--json] DIR`. */
#include "cli.h"
#include "report_out.h"
#include "util.h"

#include <getopt.h>
#include <stdbool.h>

static int report_dir(const char *dir, bool json)
{
    struct report r;
    if (report_load(dir, &r) != 0)
        return 1;
    int rc = json ? report_print_json(&r, stdout) : report_print_text(&r, stdout);
    report_free(&r);
    if (rc != 0) {
        msg("cannot write the report");
        return 1;
    }
    return 0;
}

int report_dir_text(const char *dir)
{
    return report_dir(dir, false);
}

int cmd_report(int argc, char **argv)
{
    enum { OPT_JSON = 0x100 };
    static const struct option options[] = {
        { "json", no_argument, NULL, OPT_JSON },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    bool json = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        switch (c) {
        case OPT_JSON:
            json = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            return usage_hint();
        }
    }
    if (argc - optind != 1)
        return usage_error(argv[0], "expects one directory");
    return report_dir(argv[optind], json);
}
