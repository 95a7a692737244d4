/* `nccltap report [--format text|json|csv|html|perfetto] [-o FILE] [--findings] [--wide] [--top N]
 * [--comm ID] [--op NAME] [--run ID] [--debug-dir DIR]... PATH` (and the older --json, --csv,
 * --html FILE, --perfetto FILE), options before or after PATH:
 * PATH is a directory of per-rank files (of one run: the newest, or ID), or
 * an LTTng trace of the run (the directory `nccltap run --lttng` wrote, or
 * any directory with a CTF trace below it). With --perfetto OUT the run's
 * timeline goes to OUT instead (perfetto_cmd.c); with --html FILE the
 * report goes to FILE as one HTML page (render/html.c). */
#include "analysis.h"
#include "check_options.h"
#include "compare.h"
#include "cli.h"
#include "load.h"
#include "report_file.h"
#include "perfetto_cmd.h"
#include "render.h"
#include "slow_transfers.h"
#include "util.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Where separate debug information is looked for besides /usr/lib/debug
 * (--debug-dir, repeatable). */
#define MAX_DEBUG_DIRS 16
static char *debug_dirs[MAX_DEBUG_DIRS];
static size_t ndebug_dirs;

/* Where the timeline goes, when it is wanted. */
struct perfetto_opts {
    const char *out;          /* NULL: print the report */
    struct tl_options tl;
};

/* What the report prints. */
enum report_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV };
struct print_opts {
    enum report_format format;
    struct text_options text;
    struct summary_options summary;
    bool findings_only;       /* --findings: the Findings block alone */
    const char *html;         /* --html FILE: the page goes there; NULL: none */
    const char *output;       /* -o FILE: text, JSON or CSV go there, whole or not at all; NULL: stdout */
};

/* What out_file_write hands write_html. */
struct html_page {
    const struct report *r;
    const struct report_analysis *a;
};

static int write_html(FILE *out, void *ctx)
{
    const struct html_page *p = ctx;
    return report_print_html(p->r, &p->a->summary, &p->a->strip, out);
}

/* The HTML page of r to `path`, written whole or not at all. */
static int report_html(const struct report *r, const struct report_analysis *a, const char *path)
{
    struct html_page page = { r, a };
    int rc = out_file_write(path, write_html, &page);
    if (rc == 0)
        msg("HTML report in %s: open it in any browser (it needs no network)", path);
    return rc;
}

static int print_to(FILE *out, const struct report *r, const struct report_analysis *a,
                    const struct print_opts *o)
{
    const struct report_summary *s = &a->summary;
    return o->findings_only ? report_print_findings(s, o->format == FORMAT_JSON, out)
           : o->format == FORMAT_JSON ? report_print_json(r, s, out)
           : o->format == FORMAT_CSV ? report_print_csv(s, out)
           : report_print_text(r, s, &o->text, out);
}

/* What out_file_write hands write_printed, and what print_to said (with
 * --findings, 1 when something was found: not a failure to write). */
struct printed {
    const struct report *r;
    const struct report_analysis *a;
    const struct print_opts *o;
    int rc;
};

static int write_printed(FILE *out, void *ctx)
{
    struct printed *p = ctx;
    p->rc = print_to(out, p->r, p->a, p->o);
    return p->rc < 0 ? -1 : 0;
}

/* The report as o says: the page, or the text, JSON or CSV on stdout or
 * in -o's file. */
static int print_report(const struct report *r, const struct report_analysis *a, const struct print_opts *o)
{
    if (o->html)
        return report_html(r, a, o->html);
    if (!o->output)
        return print_to(stdout, r, a, o);
    struct printed p = { r, a, o, 0 };
    return out_file_write(o->output, write_printed, &p) == 0 ? p.rc : -1;
}

/* The run at `path`, reported as o or p say: loaded, analysed once
 * (report_analyze), rendered. 0; 1 when it cannot be read or written;
 * EXIT_USAGE when a value chosen (argv0's options) is not in it. */
static int report_path(const char *argv0, const char *path, const char *run, const char *expect_busbw,
                       const struct print_opts *o, const struct perfetto_opts *p)
{
    struct report r;
    int loaded = report_path_is_trace(path) ? report_load_trace(path, &r) : report_load(path, run, &r);
    if (loaded != 0)
        return 1;
    const struct chosen chosen = { .op = o->summary.op, .comm = o->summary.comm,
                                   .ranks = p ? p->tl.ranks : NULL, .nranks = p ? p->tl.nranks : 0 };
    if (!report_check_chosen(argv0, &r, &chosen)) {
        report_free(&r);
        return EXIT_USAGE;
    }
    report_symbolize(&r, debug_dirs, ndebug_dirs);
    bool timeline = p && p->out;
    const struct analysis_options ao = { .summary = o->summary, .expect_busbw = expect_busbw,
                                         .strip = !timeline && o->html, .timeline = timeline ? &p->tl : NULL };
    struct report_analysis a;
    report_analyze(&r, &ao, &a);
    int rc;
    /* The window is checked in the reference clock, which the analysis set. */
    if (timeline && !report_check_window(argv0, &r, p->tl.from_s)) {
        rc = EXIT_USAGE;
    } else if (timeline) {
        rc = report_perfetto(&r, &a.timeline, p->out) == 0 ? 0 : 1;
    } else {
        rc = print_report(&r, &a, o);
        if (rc < 0)
            msg("cannot write the report");
        /* --findings: 1 when something was found, as when it failed. */
        rc = rc == 0 ? 0 : 1;
    }
    report_analysis_free(&r, &a);
    report_free(&r);
    return rc;
}

/* One run of --compare, loaded and analysed (its summary). */
static bool load_analysed(const char *path, const struct print_opts *o, struct report *r, struct report_analysis *a)
{
    int loaded = report_path_is_trace(path) ? report_load_trace(path, r) : report_load(path, NULL, r);
    if (loaded != 0)
        return false;
    const struct analysis_options ao = { .summary = o->summary };
    report_analyze(r, &ao, a);
    return true;
}

/* `--compare A B`: what changed in communication from A to B (text or
 * --json, on stdout). 0; 1 when a run cannot be read or the output
 * written. */
static int compare_paths(const char *path_a, const char *path_b, const struct print_opts *o)
{
    struct report r[2];
    struct report_analysis a[2];
    if (!load_analysed(path_a, o, &r[0], &a[0]))
        return 1;
    if (!load_analysed(path_b, o, &r[1], &a[1])) {
        report_analysis_free(&r[0], &a[0]);
        report_free(&r[0]);
        return 1;
    }
    struct compare c;
    compare_runs(&a[0].summary, &a[1].summary, &c);
    int rc = o->format == FORMAT_JSON ? compare_print_json(&c, path_a, path_b, stdout)
                                      : compare_print_text(&c, path_a, path_b, stdout);
    if (rc != 0)
        msg("cannot write the comparison");
    compare_free(&c);
    for (int i = 0; i < 2; i++) {
        report_analysis_free(&r[i], &a[i]);
        report_free(&r[i]);
    }
    return rc == 0 ? 0 : 1;
}

/* --expect-busbw's value parses (the variable's is said in the report,
 * which the job's environment may carry unseen). */
static bool expect_busbw_valid(const char *spec)
{
    struct crossrank *scratch = xcalloc(1, sizeof *scratch);
    bool ok = xr_parse_expect(scratch, spec);
    free(scratch);
    return ok;
}

/* --format's names. */
static const char *const format_names[] = { "text", "json", "csv", "html", "perfetto" };

static bool format_known(const char *name)
{
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
        if (strcmp(name, format_names[i]) == 0)
            return true;
    return false;
}

/* --format and -o as the older flags would have set them (the checks
 * after apply to both): NULL, or why they cannot be. */
static const char *resolve_format(const char *format, const char *output, bool *json, bool *csv,
                                  struct print_opts *o, struct perfetto_opts *p)
{
    if (format && (*json || *csv || o->html || p->out))
        return "--format chooses the output: not with --json, --csv, --html or --perfetto";
    if (!format && output && (o->html || p->out))
        return "-o names where the report goes: --html and --perfetto name their own file";
    if (!format)
        format = "text";
    if (strcmp(format, "html") == 0 || strcmp(format, "perfetto") == 0) {
        if (!output)
            return strcmp(format, "html") == 0 ? "--format html writes a page: name it with -o FILE"
                                               : "--format perfetto writes a trace: name it with -o FILE";
        *(format[0] == 'h' ? &o->html : &p->out) = output;
        return NULL;
    }
    *json = strcmp(format, "json") == 0;
    *csv = strcmp(format, "csv") == 0;
    o->format = *json ? FORMAT_JSON : *csv ? FORMAT_CSV : o->format;
    o->output = output;
    return NULL;
}

/* --top's default: ten lines, as mpiP's reports show. */
#define TOP_DEFAULT 10

int report_dir_text(const char *dir)
{
    const struct print_opts o = { .format = FORMAT_TEXT, .summary = { .top = TOP_DEFAULT } };
    return report_path("nccltap report", dir, NULL, getenv("NCCLTAP_EXPECT_BUSBW_GBS"), &o, NULL);
}

int cmd_report(int argc, char **argv)
{
    enum { OPT_JSON = 0x100, OPT_CSV, OPT_WIDE, OPT_TOP, OPT_COMM, OPT_OP, OPT_EXPECT, OPT_RUN, OPT_PERFETTO,
           OPT_FROM, OPT_TO, OPT_RANKS, OPT_DEBUG_DIR, OPT_FINDINGS, OPT_HTML, OPT_FORMAT, OPT_COMPARE };
    static const struct option options[] = {
        { "json", no_argument, NULL, OPT_JSON },
        { "csv", no_argument, NULL, OPT_CSV },
        { "wide", no_argument, NULL, OPT_WIDE },
        { "top", required_argument, NULL, OPT_TOP },
        { "comm", required_argument, NULL, OPT_COMM },
        { "op", required_argument, NULL, OPT_OP },
        { "expect-busbw", required_argument, NULL, OPT_EXPECT },
        { "run", required_argument, NULL, OPT_RUN },
        { "perfetto", required_argument, NULL, OPT_PERFETTO },
        { "from", required_argument, NULL, OPT_FROM },
        { "to", required_argument, NULL, OPT_TO },
        { "ranks", required_argument, NULL, OPT_RANKS },
        { "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
        { "findings", no_argument, NULL, OPT_FINDINGS },
        { "html", required_argument, NULL, OPT_HTML },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "compare", no_argument, NULL, OPT_COMPARE },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct print_opts o = { .format = FORMAT_TEXT, .summary = { .top = TOP_DEFAULT } };
    bool json = false, csv = false, compare = false;
    const char *run = NULL, *format = NULL, *output = NULL;
    /* What the transfers should reach (crossrank.h): the option, or the
     * variable, so that a job's environment can carry it. */
    const char *expect_busbw = getenv("NCCLTAP_EXPECT_BUSBW_GBS");
    struct perfetto_opts p = { .tl = { .from_s = 0, .to_s = -1 } };
    int *ranks = NULL;
    char *end;
    int c;
    optind = 1;
    /* Options may follow PATH (getopt permutes): `nccltap report out --json`. */
    while ((c = getopt_long(argc, argv, "ho:", options, NULL)) != -1) {
        switch (c) {
        case OPT_JSON:
            json = true;
            o.format = FORMAT_JSON;
            break;
        case OPT_CSV:
            csv = true;
            o.format = FORMAT_CSV;
            break;
        case OPT_FINDINGS:
            o.findings_only = true;
            break;
        case OPT_COMPARE:
            compare = true;
            break;
        case OPT_HTML:
            o.html = optarg;
            break;
        case OPT_FORMAT:
            if (!format_known(optarg)) {
                free(ranks);
                return usage_error(argv[0], "--format takes text, json, csv, html or perfetto, not \"%s\"", optarg);
            }
            format = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case OPT_WIDE:
            o.text.wide = true;
            break;
        case OPT_TOP: {
            unsigned long long v = strtoull(optarg, &end, 10);
            if (end == optarg || *end || optarg[0] == '-' || v > 100000) {
                free(ranks);
                return usage_error(argv[0], "--top takes a number of lines from 0 to 100000, not \"%s\"",
                                   optarg);
            }
            o.summary.top = (size_t)v;
            break;
        }
        case OPT_COMM:
            o.summary.comm = optarg;
            break;
        case OPT_OP:
            o.summary.op = optarg;
            break;
        case OPT_EXPECT:
            if (!expect_busbw_valid(optarg)) {
                free(ranks);
                return usage_error(argv[0], "--expect-busbw takes [OP:]GBS[@MINBYTES],... (e.g. "
                                   "AllReduce:180@64M,100), not \"%s\"", optarg);
            }
            expect_busbw = optarg;
            break;
        case OPT_RUN:
            run = optarg;
            break;
        case OPT_PERFETTO:
            p.out = optarg;
            break;
        case OPT_FROM:
        case OPT_TO: {
            double v = strtod(optarg, &end);
            if (end == optarg || *end || !(v >= 0)) {
                free(ranks);
                return usage_error(argv[0], "--%s takes seconds from the run's first op "
                                   "(a number >= 0), not \"%s\"", c == OPT_FROM ? "from" : "to", optarg);
            }
            *(c == OPT_FROM ? &p.tl.from_s : &p.tl.to_s) = v;
            break;
        }
        case OPT_RANKS:
            free(ranks);
            if (parse_rank_list(optarg, &ranks, &p.tl.nranks) != 0)
                return usage_error(argv[0], "--ranks takes ranks such as 0,2,5-7, not \"%s\"",
                                   optarg);
            p.tl.ranks = ranks;
            break;
        case OPT_DEBUG_DIR:
            if (ndebug_dirs == MAX_DEBUG_DIRS) {
                free(ranks);
                return usage_error(argv[0], "takes at most 16 --debug-dir options");
            }
            debug_dirs[ndebug_dirs++] = optarg;
            break;
        case 'h':
            free(ranks);
            usage_report(stdout);
            return 0;
        default:
            free(ranks);
            return usage_hint();
        }
    }
    int rc;
    const char *why = NULL;
    if (format || output)
        why = resolve_format(format, output, &json, &csv, &o, &p);
    if (why)
        rc = usage_error(argv[0], "%s", why);
    else if (compare && (argc - optind != 2 || csv || o.findings_only || o.html || p.out || o.output || run))
        rc = usage_error(argv[0], argc - optind != 2 ? "--compare expects two runs: A B (directories or traces)"
                                                     : "--compare prints text or --json on stdout, of the newest"
                                                       " run of each directory: no other output option, nor --run");
    else if (compare)
        rc = compare_paths(argv[optind], argv[optind + 1], &o);
    else if (argc - optind != 1)
        rc = usage_error(argv[0], "expects one directory or trace");
    else if (json && csv)
        rc = usage_error(argv[0], "--json and --csv: choose one");
    else if (o.findings_only && (csv || p.out))
        rc = usage_error(argv[0], "--findings prints the findings as text or --json: not with %s",
                         csv ? "--csv" : "--perfetto");
    else if (o.html && (json || csv || o.findings_only || p.out))
        rc = usage_error(argv[0], "--html writes the report as a page: not with %s",
                         json ? "--json" : csv ? "--csv" : o.findings_only ? "--findings" : "--perfetto");
    else if (!p.out && (ranks || p.tl.from_s > 0 || p.tl.to_s >= 0))
        rc = usage_error(argv[0], "--from, --to and --ranks choose what --perfetto writes");
    else if (p.tl.to_s >= 0 && p.tl.to_s <= p.tl.from_s)
        rc = usage_error(argv[0], "--to must be after --from");
    else if (p.out && !out_dir_writable(argv[0], format ? "-o" : "--perfetto", p.out))
        rc = EXIT_USAGE;
    else if (o.html && !out_dir_writable(argv[0], format ? "-o" : "--html", o.html))
        rc = EXIT_USAGE;
    else if (o.output && !out_dir_writable(argv[0], "-o", o.output))
        rc = EXIT_USAGE;
    else
        rc = report_path(argv[0], argv[optind], run, expect_busbw, &o, &p);
    free(ranks);
    return rc;
}
