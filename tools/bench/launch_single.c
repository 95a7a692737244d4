#include "launch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "fail.h"
#include "rank.h"
#include "rdv.h"

/* Where each launcher puts the rank, the world size and the rank on this
 * host, first match wins. */
static const struct {
    const char *rank, *world, *local;
} launchers[] = {
    { "RANK", "WORLD_SIZE", "LOCAL_RANK" },                                     /* torchrun */
    { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK" },
    { "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID" },
};

/* The variable's value as a number >= lo; -1 when unset; -2 when invalid. */
static int env_int(const char *name, int lo)
{
    const char *s = getenv(name);
    if (!s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > INT_MAX)
        return -2;
    return (int)v;
}

/* Fills rank, world and local rank. Returns 0, or -1 after a message. */
static int from_env(int *rank, int *world, int *local)
{
    *rank = 0;
    *world = 1;
    *local = 0;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        int r = env_int(launchers[i].rank, 0);
        if (r == -1)
            continue;
        int w = env_int(launchers[i].world, 1);
        if (r < 0 || w < 0 || r >= w) {
            fprintf(stderr, "nccltap-bench: %s=%s and %s=%s do not make a rank of a world\n",
                    launchers[i].rank, getenv(launchers[i].rank),
                    launchers[i].world, getenv(launchers[i].world) ? getenv(launchers[i].world) : "(unset)");
            return -1;
        }
        int l = env_int(launchers[i].local, 0);
        *rank = r;
        *world = w;
        *local = l >= 0 ? l : r;
        return 0;
    }
    return 0;
}

/* $TMPDIR/nccltap-bench-<key>: the key is what the ranks of one job share
 * (all ranks on one host share their launcher's pid too). */
static void default_id_path(char *out, size_t len)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    const char *job = getenv("SLURM_JOB_ID");
    const char *step = getenv("SLURM_STEP_ID");
    const char *port = getenv("MASTER_PORT");
    if (job && *job)
        snprintf(out, len, "%s/nccltap-bench-slurm%s.%s", dir, job, step ? step : "0");
    else if (port && *port)
        snprintf(out, len, "%s/nccltap-bench-port%s", dir, port);
    else
        snprintf(out, len, "%s/nccltap-bench-ppid%ld", dir, (long)getppid());
}

int launch_single(const struct bench_opts *o)
{
    int rank, world, local;
    if (from_env(&rank, &world, &local) || options_check_world(o, world))
        return BENCH_EXIT_USAGE;
    fail_set_rank(rank); /* the id file's refusals name the rank */
    struct rdv *rdv;
    if (world == 1) {
        rdv = rdv_solo();
    } else {
        char path[PATH_MAX];
        if (o->id_file)
            snprintf(path, sizeof path, "%s", o->id_file);
        else
            default_id_path(path, sizeof path);
        rdv = rdv_file(path, rank, world, o->timeout_s);
    }
    return rank_run(o, rdv, rank, world, local);
}
