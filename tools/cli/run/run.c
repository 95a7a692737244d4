/* `nccltap run [options] -- command...`: the command's environment is set
 * so that the shim is loaded and knows where to write, then the command runs
 * as a child of nccltap, which says where the output went when it ends. */
#include "run.h"
#include "cli.h"
#include "outdir.h"
#include "load.h"
#include "prom_sweep.h"
#include "shim_vars.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool require(const char *path, const char *what)
{
    if (path_exists(path))
        return true;
    msg("%s is missing: %s (is nccltap completely built or installed?)", what, path);
    return false;
}

/* The simulator is only ever used when asked for: it must never stand in
 * for the real NCCL without the user knowing. */
static bool setup_sim(const struct nccltap_paths *p, enum run_sim sim)
{
    if (sim == RUN_SIM_NONE)
        return true;
    char *nccl = xasprintf("%s/libnccl.so.2", sim == RUN_SIM ? p->sim : p->sim_legacy);
    char *cuda = xasprintf("%s/libcuda.so.1", p->sim);
    bool ok = require(nccl, "the simulated NCCL") && require(cuda, "the simulated CUDA driver");
    free(nccl);
    free(cuda);
    if (!ok)
        return false;
    /* Prepended in reverse: the legacy NCCL comes first and finds the
     * simulated libcuda next. */
    env_prepend("LD_LIBRARY_PATH", p->sim);
    if (sim == RUN_SIM_LEGACY)
        env_prepend("LD_LIBRARY_PATH", p->sim_legacy);
    return true;
}

/* How the command ended, for what nccltap says about it. */
struct run_end {
    int status;       /* as a shell reports it */
    int signal;       /* that killed it, or 0 when it exited */
    int shell_signal; /* an exit status 128+N that a shell gives when its
                       * command was killed by signal N; or 0 */
};

/* The signal a shell's exit status 128+N may stand for: only a real one,
 * since any status up to 255 is a program's to give (exit 200). */
static int shell_signal_of(int status)
{
    return status > 128 && status - 128 <= SIGRTMAX ? status - 128 : 0;
}

static void say_how_it_ended(const char *cmd, const struct run_end *e)
{
    if (e->signal)
        msg("%s was killed by signal %d (%s)", cmd, e->signal, strsignal(e->signal));
    else if (e->shell_signal)
        msg("%s exited with status %d, as a shell does when its command was killed by signal %d (%s)", cmd,
            e->status, e->shell_signal, strsignal(e->shell_signal));
}

/* Why the run left no rank file, the most certain reason first. */
static void say_why_nothing(const char *dir, const struct run_end *e)
{
    char buf[256];
    const char *why = outdir_why_unwritten(dir, buf, sizeof buf);
    if (why)
        msg("no per-rank file of this run in %s: %s", dir, why);
    else if (e->signal)
        msg("no per-rank file of this run in %s: the command was killed before nccltap wrote its "
            "first interval (NCCLTAP_INTERVAL_MS, default 5000)", dir);
    else if (e->shell_signal)
        msg("no per-rank file of this run in %s: the command made no NCCL call, the shim was not "
            "loaded into it, or (if signal %d killed it) it was killed before nccltap wrote its first "
            "interval (NCCLTAP_INTERVAL_MS, default 5000)", dir, e->shell_signal);
    else
        msg("no per-rank file of this run in %s: the command made no NCCL call, or the shim was "
            "not loaded into it, or its NCCL calls went past the shim (a line from nccltap above says so "
            "where the process shows why)", dir);
}

/* What the run left, and how to read it: a command that works as printed,
 * with this nccltap's full path (it need not be on PATH). */
static void say_where(const struct nccltap_paths *p, const char *dir, const char *run_id,
                      const struct run_end *e)
{
    size_t n;
    char **files = report_files(dir, &n);
    size_t ours = report_files_of_run(files, n, run_id);
    report_files_free(files);
    if (ours == 0) {
        say_why_nothing(dir, e);
        return;
    }
    msg("output in %s (run %s)", dir, run_id);
    char *q = shell_quoted(dir), *self = xasprintf("%s/nccltap", p->bindir), *qself = shell_quoted(self);
    if (ours < n)
        msg("report with: %s report --run %s %s", qself, run_id, q);
    else
        msg("report with: %s report %s", qself, q);
    free(q);
    free(self);
    free(qself);
}

/* NCCLTAP_STEP_FUNCTION names a Python function whose calls start steps:
 * the marker's sitecustomize goes first on PYTHONPATH (it imports the
 * next one on the path itself). */
static void step_function_env(const struct nccltap_paths *p)
{
    const char *f = getenv("NCCLTAP_STEP_FUNCTION");
    if (!f || !*f)
        return;
    char *file = xasprintf("%s/sitecustomize.py", p->python);
    if (path_exists(file))
        env_prepend("PYTHONPATH", p->python);
    else
        msg("NCCLTAP_STEP_FUNCTION=%s: %s is missing (a broken install); no Python steps marked", f, file);
    free(file);
}

int run_under_shim(const struct nccltap_paths *p, const struct run_opts *o,
                   char *const argv[], char **outdir)
{
    if (outdir)
        *outdir = NULL;
    if (!require(p->shim, "the nccltap shim"))
        return EXIT_NOT_FOUND;
    if (o->lttng.enabled && !require(p->lttng_provider, "the nccltap LTTng provider"))
        return EXIT_NOT_FOUND;
    if (!setup_sim(p, o->sim))
        return EXIT_NOT_FOUND;
    char *dir = outdir_prepare(o->dir);
    if (!dir)
        return EXIT_NCCLTAP_FAILED;
    setenv("NCCLTAP_DIR", dir, 1);
    char run_id[64];
    outdir_set_run_id(run_id, sizeof run_id);
    struct lttng_session *session = NULL;
    if (o->lttng.enabled) {
        session = lttng_session_start(&o->lttng, dir);
        if (!session) {
            free(dir);
            return EXIT_NCCLTAP_FAILED;
        }
        lttng_session_app_env(session);
    }
    shim_vars_check_env();
    /* First, so that the shim's NCCL symbols are the ones the program binds
     * to, whatever else is preloaded. */
    env_prepend("LD_PRELOAD", p->shim);
    step_function_env(p);

    int err;
    struct run_end end;
    int status = spawn_wait(argv, &err, &end.signal);
    if (session)
        lttng_session_finish(session);
    prom_sweep();
    if (status == -1) {
        msg("cannot run %s: %s", argv[0], strerror(err));
        free(dir);
        return err == ENOENT || err == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
    }
    if (status == -2) {
        msg("cannot start %s: %s", argv[0], strerror(err));
        free(dir);
        return EXIT_NCCLTAP_FAILED;
    }
    end.status = status;
    end.shell_signal = end.signal ? 0 : shell_signal_of(status);
    say_how_it_ended(argv[0], &end);
    say_where(p, dir, run_id, &end);
    if (outdir)
        *outdir = dir;
    else
        free(dir);
    return status;
}

int cmd_run(int argc, char **argv)
{
    /* One entry and one case per option. */
    enum {
        OPT_DIR = 'd', OPT_HELP = 'h', OPT_SIM = 0x100, OPT_LEGACY_SIM,
        OPT_LTTNG, OPT_KERNEL, OPT_BLOCKING, OPT_SYSTEM, OPT_URL,
        OPT_SHIM_VAR,  /* sets one of the shim's variables (shim_vars.c) */
    };
    static const struct option options[] = {
        { "dir", required_argument, NULL, OPT_DIR },
        { "sim", no_argument, NULL, OPT_SIM },
        { "legacy-sim", no_argument, NULL, OPT_LEGACY_SIM },
        { "lttng", no_argument, NULL, OPT_LTTNG },
        { "kernel", no_argument, NULL, OPT_KERNEL },
        { "blocking", no_argument, NULL, OPT_BLOCKING },
        { "system", no_argument, NULL, OPT_SYSTEM },
        { "url", required_argument, NULL, OPT_URL },
        { "timing", required_argument, NULL, OPT_SHIM_VAR },
        { "hang-timeout", required_argument, NULL, OPT_SHIM_VAR },
        { "interval-ms", required_argument, NULL, OPT_SHIM_VAR },
        { "ops-jsonl", required_argument, NULL, OPT_SHIM_VAR },
        { "prom-dir", required_argument, NULL, OPT_SHIM_VAR },
        { "step-function", required_argument, NULL, OPT_SHIM_VAR },
        { "help", no_argument, NULL, OPT_HELP },
        { NULL, 0, NULL, 0 },
    };
    struct run_opts o = { .dir = NULL, .sim = RUN_SIM_NONE };
    const char *lttng_only = NULL;  /* an option that means nothing without --lttng */
    int c, which;
    optind = 1;
    /* "+": options end at the command, so its own options are left alone
     * even without "--". */
    while ((c = getopt_long(argc, argv, "+d:h", options, &which)) != -1) {
        switch (c) {
        case OPT_DIR:
            o.dir = optarg;
            break;
        case OPT_SIM:
            o.sim = RUN_SIM;
            break;
        case OPT_LEGACY_SIM:
            o.sim = RUN_SIM_LEGACY;
            break;
        case OPT_LTTNG:
            o.lttng.enabled = true;
            break;
        case OPT_KERNEL:
            o.lttng.kernel = true;
            lttng_only = "--kernel";
            break;
        case OPT_BLOCKING:
            o.lttng.blocking = true;
            lttng_only = "--blocking";
            break;
        case OPT_SYSTEM:
            o.lttng.system = true;
            lttng_only = "--system";
            break;
        case OPT_URL:
            o.lttng.url = optarg;
            lttng_only = "--url";
            break;
        case OPT_SHIM_VAR:
            if (shim_var_set(argv[0], options[which].name, optarg) != 0)
                return EXIT_USAGE;
            break;
        case OPT_HELP:
            usage_run(stdout);
            return 0;
        default:
            return usage_hint();
        }
    }
    if (optind == argc)
        return usage_error(argv[0], "no command to run");
    if (o.dir && !o.dir[0])
        return usage_error(argv[0], "--dir needs a directory");
    if (lttng_only && !o.lttng.enabled)
        return usage_error(argv[0], "%s needs --lttng", lttng_only);
    if (o.lttng.url && !o.lttng.url[0])
        return usage_error(argv[0], "--url needs a URL (net://HOST)");

    struct nccltap_paths p;
    char why[256];
    if (paths_find(&p, why, sizeof why) != 0) {
        msg("%s", why);
        return EXIT_NCCLTAP_FAILED;
    }
    int status = run_under_shim(&p, &o, argv + optind, NULL);
    paths_free(&p);
    return status;
}
