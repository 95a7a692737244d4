/* `nccltap demo`: shows in one command what nccltap finds. nccltap-bench
 * runs under the shim for a few seconds with a fault injected (a scenario:
 * a straggler by default, or nothing, a slow link, a hang), on the
 * simulator, which is the only place a fault can be injected; on GPUs (when
 * there are any) the healthy run is made and the demo says so. Then the
 * report of that run is printed. The bench's own table goes to a file,
 * named at the end, and the last line is a command that shows the report
 * again as printed (nccltap's full path: it need not be on PATH).
 * Runs on the main thread; the hang scenario forks one watcher process. */
#include "cli.h"
#include "cuda/cuda_driver.h"
#include "outdir.h"
#include "run.h"
#include "util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEMO_RANKS 4
/* The longest a hung run is left waiting for every rank's watchdog (it
 * writes after NCCLTAP_HANG_TIMEOUT_S=1): the demo ends by itself. */
#define HANG_WAIT_S 30

struct knob {
    const char *name, *value;
};

struct scenario {
    const char *name;
    const char *what;        /* what is injected, said before the run */
    struct knob knobs[4];    /* the simulator's (and shim's) variables; NULL-ended */
    bool hangs;              /* stopped once every watchdog has written */
};

static const struct scenario scenarios[] = {
    { "healthy", "nothing injected", { { NULL, NULL } }, false },
    { "straggler", "rank 2 computes 1 ms longer before every 4th collective, as a real straggler is late "
      "at the first collective after its work",
      { { "NCCLSIM_SLOW_RANK", "2" }, { "NCCLSIM_SLOW_US", "1000" }, { "NCCLSIM_SLOW_EVERY", "4" }, { NULL, NULL } },
      false },
    { "slow-link", "rank 1's link moves data 4 times slower",
      { { "NCCLSIM_SLOW_LINK_RANK", "1" }, { "NCCLSIM_SLOW_LINK_FACTOR", "4" }, { NULL, NULL } }, false },
    { "hang", "rank 3 never reaches collective seq 50; the others wait for it",
      { { "NCCLSIM_HANG_RANK", "3" }, { "NCCLSIM_HANG_SEQ", "50" }, { "NCCLTAP_HANG_TIMEOUT_S", "1" } },
      true },
};
#define NSCENARIOS (sizeof scenarios / sizeof scenarios[0])
#define DEFAULT_SCENARIO (&scenarios[1])

static const struct scenario *scenario_named(const char *name)
{
    for (size_t i = 0; i < NSCENARIOS; i++)
        if (strcmp(scenarios[i].name, name) == 0)
            return &scenarios[i];
    return NULL;
}

/* Every scenario's variables unset, then `s`'s set: what the user's
 * environment held from another experiment must not change the scenario. */
static void scenario_apply(const struct scenario *s)
{
    for (size_t i = 0; i < NSCENARIOS; i++)
        for (const struct knob *k = scenarios[i].knobs; k->name; k++)
            unsetenv(k->name);
    for (const struct knob *k = s->knobs; k->name; k++)
        setenv(k->name, k->value, 1);
}

/* The number of GPUs the bench can use, or 0 with the reason in `why`. */
static int count_gpus(char *why, size_t why_len)
{
    struct cuda_driver drv;
    if (cuda_driver_load(&drv, NULL, why, why_len) != 0)
        return 0;
    int n = 0;
    if (!drv.cuDeviceGetCount) {
        snprintf(why, why_len, "the CUDA driver has no cuDeviceGetCount");
        return 0;
    }
    CUresult r = drv.cuDeviceGetCount(&n);
    if (r != CUDA_SUCCESS) {
        snprintf(why, why_len, "cuDeviceGetCount failed: %s", cuda_driver_error(&drv, r));
        return 0;
    }
    if (n <= 0) {
        snprintf(why, why_len, "the CUDA driver reports no device");
        return 0;
    }
    /* GPUs without NCCL installed: the bench could not start, and the
     * simulator still shows what the report looks like. */
    void *nccl = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_LOCAL);
    if (!nccl) {
        snprintf(why, why_len, "%d GPU%s but no NCCL: %s", n, n == 1 ? "" : "s", dlerror());
        return 0;
    }
    dlclose(nccl);
    return n;
}

/* The hang files of run `run_id` in `dir` (the watchdog's, one per rank). */
static int count_hang_files(const char *dir, const char *run_id)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char *prefix = xasprintf("nccltap-%s@", run_id);
    static const char suffix[] = ".hang.json";
    size_t plen = strlen(prefix), slen = sizeof suffix - 1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        n += len > plen + slen && strncmp(e->d_name, prefix, plen) == 0 &&
             strcmp(e->d_name + len - slen, suffix) == 0;
    }
    closedir(d);
    free(prefix);
    return n;
}

/* Forks a process that waits until `ranks` hang files of the run are in
 * `dir` (or HANG_WAIT_S), then sends nccltap SIGTERM, which the run forwards
 * to the hung bench. Returns its pid, or -1 (then nothing stops the run but
 * the user, said on stderr). */
static pid_t watch_hang(const char *dir, const char *run_id, int ranks)
{
    pid_t pid = fork();
    if (pid < 0) {
        msg("demo: cannot start the watcher that ends the hung run: %s; stop it with Ctrl-C",
            strerror(errno));
        return -1;
    }
    if (pid > 0)
        return pid;
    const struct timespec tick = { 0, 100 * 1000 * 1000 };
    for (int t = 0; t < HANG_WAIT_S * 10 && count_hang_files(dir, run_id) < ranks; t++)
        nanosleep(&tick, NULL);
    fprintf(stderr, "nccltap demo: the hang watchdog has written; stopping the hung run\n");
    kill(getppid(), SIGTERM);
    _exit(0);
}

static void stop_watcher(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* Runs the bench under the shim with its stdout in `table` (the report is
 * what the demo shows). Returns its exit status and sets *ran, as
 * run_under_shim: false when the bench could not be started. */
static int run_bench(const struct nccltap_paths *p, const struct run_opts *o, char *const argv[],
                     const char *table, bool *ran)
{
    *ran = false;
    int fd = open(table, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        msg("demo: cannot write %s: %s", table, strerror(errno));
        return EXIT_NCCLTAP_FAILED;
    }
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    char *dir = NULL;
    int status = run_under_shim(p, o, argv, &dir);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    *ran = dir != NULL;
    free(dir);
    return status;
}

/* Where the bench's table went, and the command that shows the report again
 * (last, so that it can be copied as printed). */
static void say_what_next(const char *bindir, const char *dir, const char *run_id, const char *table)
{
    char *nccltap = xasprintf("%s/nccltap", bindir);
    char *q_nccltap = shell_quoted(nccltap), *q_dir = shell_quoted(dir), *q_run = shell_quoted(run_id);
    printf("\nThe bench's own table (nccl-tests style, one row per op and size): %s\n"
           "This report again (--json for JSON, --help for its options):\n"
           "  %s report --run %s %s\n", table, q_nccltap, q_run, q_dir);
    free(nccltap);
    free(q_nccltap);
    free(q_dir);
    free(q_run);
}

static const char *scenario_list(void)
{
    return "healthy, straggler, slow-link, hang";
}

int cmd_demo(int argc, char **argv)
{
    static const struct option options[] = {
        { "dir", required_argument, NULL, 'd' },
        { "scenario", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct run_opts o = { .dir = NULL, .sim = RUN_SIM_NONE };
    const struct scenario *s = DEFAULT_SCENARIO;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+d:s:h", options, NULL)) != -1) {
        switch (c) {
        case 'd':
            o.dir = optarg;
            break;
        case 's':
            s = scenario_named(optarg);
            if (!s)
                return usage_error(argv[0], "unknown scenario '%s' (--scenario): one of %s", optarg,
                                   scenario_list());
            break;
        case 'h':
            usage_demo(stdout);
            return 0;
        default:
            return usage_hint();
        }
    }
    if (optind != argc)
        return usage_error(argv[0], "takes no argument");

    struct nccltap_paths p;
    char why[512];
    if (paths_find(&p, why, sizeof why) != 0) {
        msg("%s", why);
        return EXIT_NCCLTAP_FAILED;
    }
    if (!path_exists(p.bench)) {
        msg("the bench is missing: %s (is nccltap completely built or installed?)", p.bench);
        paths_free(&p);
        return EXIT_NOT_FOUND;
    }
    int ngpus = count_gpus(why, sizeof why);
    /* NCCL refuses two ranks of one communicator on one GPU. */
    int ranks = ngpus > 0 && ngpus < DEMO_RANKS ? ngpus : DEMO_RANKS;
    if (ngpus > 0) {
        fprintf(stderr, "nccltap demo: running %d rank%s on %d of %d GPU%s\n", ranks,
                ranks == 1 ? "" : "s", ranks, ngpus, ngpus == 1 ? "" : "s");
        if (s != &scenarios[0])
            fprintf(stderr, "nccltap demo: the %s scenario is injected by the simulator only: on GPUs the "
                    "demo runs the healthy one\n", s->name);
        s = &scenarios[0];
    } else {
        fprintf(stderr, "nccltap demo: no GPU found (%s); running on the simulator\n", why);
        o.sim = RUN_SIM;
    }
    fprintf(stderr, "nccltap demo: scenario %s: %s\n", s->name, s->what);
    scenario_apply(s);

    /* The directory and run id, known before the run: the hang's watcher
     * looks for the run's files, and the last line names them. */
    char *dir = outdir_prepare(o.dir);
    if (!dir) {
        paths_free(&p);
        return EXIT_NCCLTAP_FAILED;
    }
    o.dir = dir;
    char run_id[64];
    outdir_set_run_id(run_id, sizeof run_id);
    char *table = xasprintf("%s/bench-%s.txt", dir, run_id);
    /* Its results too, which the report draws beside nccltap's (load/bench_files.c). */
    char *results = xasprintf("%s/bench-%s.json", dir, run_id);

    char nranks[16];
    snprintf(nranks, sizeof nranks, "%d", ranks);
    char *bench_argv[] = {
        p.bench, "--ranks", nranks, "--op", "all", "--bytes", "8:64M", "--factor", "4",
        "--iters", "20", "--warmup", "5", "--json", results, NULL,
    };
    pid_t watcher = s->hangs ? watch_hang(dir, run_id, ranks) : -1;
    bool ran;
    int status = run_bench(&p, &o, bench_argv, table, &ran);
    stop_watcher(watcher);
    if (!ran) {
        paths_free(&p);
        free(table);
        free(results);
        free(dir);
        return status;
    }
    /* The hung run was stopped on purpose: its status says nothing wrong. */
    if (s->hangs && status == 128 + SIGTERM)
        status = 0;
    /* Whatever the bench managed to record is worth showing, even when it
     * failed; the bench's status is what the demo returns then. */
    fflush(stderr);
    int report_status = report_dir_text(dir);
    say_what_next(p.bindir, dir, run_id, table);
    paths_free(&p);
    free(table);
    free(results);
    free(dir);
    return status != 0 ? status : report_status;
}
