/* The time one Prometheus write (prom_file.h: every GPU's file, built and
 * renamed into place) takes on the reducer thread, for C communicators on
 * one GPU, each with AllReduce, AllGather and ReduceScatter at 8 sizes
 * (8 B to 128 MiB, every 4th power of two): 24 statistics rows per
 * communicator, every row timed, and each interval one completed op per
 * row for Inspector's gauges. The shim's own writer, statistics and
 * Inspector aggregation; the communicator registry is replaced by an
 * array (below), and the reducer's snapshot has no op pending.
 * Usage: prom_write_cost DIR COMMS REPS; prints the median and the
 * fastest write, in microseconds, and the file's size. BENCHMARKS.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "state/comm_registry.h"
#include "base/config.h"
#include "nccl/nccl_ops.h"
#include "writers/ops_log.h"
#include "writers/prom_file.h"
#include "base/process.h"
#include "stats/stats.h"
#include "writers/snapshot.h"

/* What the writer needs of the rest of the shim. */
static struct tap_comm *comms;
static unsigned ncomms;

unsigned tap_comm_count(void) { return ncomms; }
struct tap_comm *tap_comm_at(unsigned i) { return &comms[i]; }

uint64_t tap_hash(uint64_t h, const void *data, size_t len)
{
    for (const unsigned char *p = data; len--; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    return h;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static const int ops[] = {TAP_OP_ALLREDUCE, TAP_OP_ALLGATHER, TAP_OP_REDUCESCATTER};

/* One interval's work: a few timed calls per row into the statistics, and
 * one completed op per row into Inspector's aggregation. */
static void interval(unsigned round)
{
    for (unsigned c = 0; c < ncomms; c++)
        for (unsigned o = 0; o < 3; o++)
            for (unsigned k = 0; k < 8; k++) {
                struct tap_op_rec r;
                memset(&r, 0, sizeof r);
                r.comm = &comms[c];
                r.op = (uint8_t)ops[o];
                r.dtype = 7;
                r.bytes = 8ull << (4 * k);
                uint64_t d = 5000 + (r.bytes >> 6) + round % 7 * 100;
                struct tap_timing t = {d, (double)r.bytes, (double)r.bytes * 1.5, false};
                for (int i = 0; i < 4; i++)
                    tap_stats_record(&r, 1, &t);
                struct tap_completion done = {&r, 0, 0, d, 1, t.bytes / (double)d, t.busbytes / (double)d, false, false, 0, 0, 0, 0};
                tap_prom_observe(&done);
            }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s DIR COMMS REPS\n", argv[0]);
        return 2;
    }
    ncomms = (unsigned)atoi(argv[2]);
    unsigned reps = (unsigned)atoi(argv[3]);
    if (!ncomms || !reps)
        return 2;
    snprintf(tap_config.prom_dir, sizeof tap_config.prom_dir, "%s", argv[1]);
    tap_config.prom_inspector = true;
    snprintf(tap_config.job_id, sizeof tap_config.job_id, "1234567");
    snprintf(tap_process.host, sizeof tap_process.host, "node-017.cluster.example");
    tap_process.pid = 4242;
    comms = calloc(ncomms, sizeof *comms);
    for (unsigned c = 0; c < ncomms; c++) {
        comms[c].id = 0x9e3779b97f4a7c15ull * (c + 1);
        comms[c].rank = (int)c % 8;
        comms[c].nranks = 8;
        comms[c].creation = c;
        snprintf(comms[c].name, sizeof comms[c].name, "tp-group-%u", c);
        snprintf(comms[c].gpu_uuid, sizeof comms[c].gpu_uuid, "GPU-6e63636c-7461-702d-7369-6d2d00000000");
    }
    /* Nothing pending: every communicator's gauge reads 0. */
    struct tap_comm_progress *pending = calloc(ncomms, sizeof *pending);
    struct tap_snapshot snap = {.progress = pending, .nprogress = ncomms};
    uint64_t *t = calloc(reps, sizeof *t);
    if (!comms || !t || !pending)
        return 1;
    int rc = 0;
    for (unsigned i = 0; i < reps && !rc; i++) {
        interval(i);
        uint64_t t0 = now_ns();
        rc = tap_prom_write(&snap) != 0;
        t[i] = now_ns() - t0;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/nccltap_%s.prom", argv[1], comms[0].gpu_uuid);
    struct stat st;
    if (!rc && stat(path, &st) != 0)
        rc = 1;
    if (!rc) {
        qsort(t, reps, sizeof *t, by_value);
        printf("%u communicators, %u statistics rows: write median %.1f us, fastest %.1f us; file %lld bytes\n",
               ncomms, tap_stats_count(), (double)t[reps / 2] / 1e3, (double)t[0] / 1e3, (long long)st.st_size);
    }
    tap_prom_finish(&snap);
    free(pending);
    free(t);
    free(comms);
    return rc;
}
