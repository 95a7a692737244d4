/* `nccltap demo`: shows what nccltap gives in one command, on any machine:
 * the bench under the shim, on the GPUs when there are any, otherwise on
 * the simulator (said aloud: its numbers are made up), then the report. */
#include "cli.h"
#include "cuda/cuda_driver.h"
#include "run.h"
#include "util.h"

#include <dlfcn.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#define DEMO_RANKS 4

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

int cmd_demo(int argc, char **argv)
{
    static const struct option options[] = {
        { "dir", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct run_opts o = { .dir = NULL, .sim = RUN_SIM_NONE };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+d:h", options, NULL)) != -1) {
        switch (c) {
        case 'd':
            o.dir = optarg;
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
    } else {
        fprintf(stderr, "nccltap demo: no GPU found (%s); running on the simulator\n", why);
        o.sim = RUN_SIM;
    }
    char nranks[16];
    snprintf(nranks, sizeof nranks, "%d", ranks);
    char *bench_argv[] = {
        p.bench, "--ranks", nranks, "--op", "all", "--bytes", "8:64M",
        "--iters", "20", "--warmup", "5", NULL,
    };
    char *dir = NULL;
    int status = run_under_shim(&p, &o, bench_argv, &dir);
    paths_free(&p);
    if (!dir)
        return status;
    /* Whatever the bench managed to record is worth showing, even when it
     * failed; the bench's status is what the demo returns then. */
    fflush(stderr);
    int report_status = report_dir_text(dir);
    free(dir);
    return status != 0 ? status : report_status;
}
