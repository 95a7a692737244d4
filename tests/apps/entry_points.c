/* The ways a program reaches NCCL's entry points beyond the plain names
 * (issue 34), on one rank, printing what it did as expectations for
 * tests/shim_case.py (api_exercise.c's format).
 *
 * Usage: entry_points SCENARIO
 *   pnccl  3 ncclAllReduce, 4 pncclAllReduce and 2 pncclBroadcast on a
 *          communicator made by pncclCommInitRank: 9 calls, each counted
 *          once, the pnccl ones as their plain twins.
 *   config NCCL 2.31's per-call configuration collectives, each once with
 *          a configuration and AllReduceConfig once more with NULL (the
 *          plain call), outside and inside a group: 18 calls, each
 *          counted and timed as its plain collective.
 *   premulsum  two PreMulSum ops made (slots 0 and 1), 3 AllReduces with
 *          the second and 1 with the first, then both destroyed: the
 *          per-op log names them premulsum#1 (3 lines) and #0 (1).
 *   events memory, registration, windows, device communicators,
 *          suspend/resume and revoke, each counted per entry point in the
 *          rank file, a refused call as failed (a second ncclCommSuspend;
 *          an ncclDevCommCreate with no requirements), beside 2
 *          AllReduces.
 *   onesided  NCCL 2.29.2's ncclPutSignal, ncclSignal and ncclWaitSignal
 *          on two ranks of one process (ncclCommInitAll): a wait issued
 *          30 ms before its put, which it waits for; a signal, then its
 *          wait; a put and a wait on each rank in one group; three calls
 *          NCCL refuses, whose codes pass through. 8 ops counted and
 *          timed, each with its peer in the per-op log.
 *   onesided_hang  rank 1 waits for a signal rank 0 never sends: pending
 *          past the hang timeout (the test sets 1 s), the hang named as a
 *          WaitSignal whose root is its peer 0; then both ranks abort. */
#include <string.h>
#include <time.h>

#include "coll_config.h"
#include "nccl_app.h"
#include "sim_device_comm.h"

#define COUNT 1024

static void expect_calls(const char *origin, int rank, const char *op, int n)
{
    printf("{\"expect\": \"calls\", \"origin\": \"%s\", \"rank\": %d, \"op\": \"%s\", \"n\": %d}\n",
           origin, rank, op, n);
}

static void expect_total(const char *key, int n)
{
    printf("{\"expect\": \"totals\", \"key\": \"%s\", \"n\": %d}\n", key, n);
}

static void expect_entry(const char *name, int calls, int failed)
{
    printf("{\"expect\": \"entry_point\", \"name\": \"%s\", \"calls\": %d, \"failed\": %d}\n", name, calls,
           failed);
}

static int scenario_pnccl(void)
{
    CUstream s = app_stream_on(0);
    void *a = app_buffer(COUNT * 4), *b = app_buffer(COUNT * 4);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(pncclCommInitRank(&comm, 1, id, 0));
    for (int k = 0; k < 3; k++)
        CHECK_NCCL(ncclAllReduce(a, b, COUNT, ncclFloat32, ncclSum, comm, s));
    for (int k = 0; k < 4; k++)
        CHECK_NCCL(pncclAllReduce(a, b, COUNT, ncclFloat32, ncclSum, comm, s));
    for (int k = 0; k < 2; k++)
        CHECK_NCCL(pncclBroadcast(a, b, COUNT, ncclFloat32, 0, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(pncclCommDestroy(comm));
    expect_calls("init", 0, "AllReduce", 7);
    expect_calls("init", 0, "Broadcast", 2);
    expect_total("calls", 9);
    return 0;
}

/* Each nccl<Coll>Config once on `comm`, AllReduceConfig twice (the
 * second with no configuration). */
static void config_round(ncclComm_t comm, CUstream s, void *a, void *b, const ncclCollConfig_t *cfg)
{
    CHECK_NCCL(ncclAllReduceConfig(a, b, COUNT, ncclFloat32, ncclSum, comm, s, cfg));
    CHECK_NCCL(ncclAllReduceConfig(a, b, COUNT, ncclFloat32, ncclMax, comm, s, NULL));
    CHECK_NCCL(ncclAllGatherConfig(a, b, COUNT, ncclFloat32, comm, s, cfg));
    CHECK_NCCL(ncclReduceScatterConfig(a, b, COUNT, ncclFloat32, ncclSum, comm, s, cfg));
    CHECK_NCCL(ncclBroadcastConfig(a, b, COUNT, ncclFloat32, 0, comm, s, cfg));
    CHECK_NCCL(ncclReduceConfig(a, b, COUNT, ncclFloat32, ncclSum, 0, comm, s, cfg));
    CHECK_NCCL(ncclAlltoAllConfig(a, b, COUNT, ncclFloat32, comm, s, cfg));
    CHECK_NCCL(ncclGatherConfig(a, b, COUNT, ncclFloat32, 0, comm, s, cfg));
    CHECK_NCCL(ncclScatterConfig(a, b, COUNT, ncclFloat32, 0, comm, s, cfg));
}

static int scenario_config(void)
{
    CUstream s = app_stream_on(0);
    void *a = app_buffer(COUNT * 4), *b = app_buffer(COUNT * 4);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    ncclCollConfig_t cfg = app_coll_config(42, sizeof cfg);
    config_round(comm, s, a, b, &cfg);
    CHECK_NCCL(ncclGroupStart());
    config_round(comm, s, a, b, &cfg);
    CHECK_NCCL(ncclGroupEnd());
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommDestroy(comm));
    expect_calls("init", 0, "AllReduce", 4);
    static const char *const once[] = {"AllGather", "ReduceScatter", "Broadcast", "Reduce", "AlltoAll", "Gather",
                                       "Scatter"};
    for (size_t i = 0; i < sizeof once / sizeof once[0]; i++)
        expect_calls("init", 0, once[i], 2);
    expect_total("calls", 18);
    return 0;
}

static void expect_ops_field(const char *key, const char *value, int n)
{
    printf("{\"expect\": \"ops_field\", \"key\": \"%s\", \"value\": \"%s\", \"n\": %d}\n", key, value, n);
}

static int scenario_premulsum(void)
{
    CUstream s = app_stream_on(0);
    void *a = app_buffer(COUNT * 4), *b = app_buffer(COUNT * 4);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    float half = 0.5f, quarter = 0.25f;
    ncclRedOp_t first, second;
    CHECK_NCCL(ncclRedOpCreatePreMulSum(&first, &half, ncclFloat32, ncclScalarHostImmediate, comm));
    CHECK_NCCL(ncclRedOpCreatePreMulSum(&second, &quarter, ncclFloat32, ncclScalarHostImmediate, comm));
    for (int k = 0; k < 3; k++)
        CHECK_NCCL(ncclAllReduce(a, b, COUNT, ncclFloat32, second, comm, s));
    CHECK_NCCL(ncclAllReduce(a, b, COUNT, ncclFloat32, first, comm, s));
    CHECK_NCCL(ncclAllReduce(a, b, COUNT, ncclFloat32, ncclSum, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclRedOpDestroy(first, comm));
    CHECK_NCCL(ncclRedOpDestroy(second, comm));
    CHECK_NCCL(ncclCommDestroy(comm));
    expect_calls("init", 0, "AllReduce", 5);
    expect_ops_field("redop", "premulsum#1", 3);
    expect_ops_field("redop", "premulsum#0", 1);
    expect_ops_field("redop", "sum", 1);
    expect_entry("ncclRedOpCreatePreMulSum", 2, 0);
    expect_entry("ncclRedOpDestroy", 2, 0);
    return 0;
}

static int scenario_events(void)
{
    CUstream s = app_stream_on(0);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    void *buf = NULL, *handle = NULL;
    ncclWindow_t win = NULL;
    CHECK_NCCL(ncclMemAlloc(&buf, COUNT * 4));
    CHECK_NCCL(ncclCommRegister(comm, buf, COUNT * 4, &handle));
    CHECK_NCCL(ncclCommWindowRegister(comm, buf, COUNT * 4, &win, 0));
    ncclDevCommRequirements_t reqs = {sizeof reqs, 0, 0};
    ncclDevComm_t dev;
    CHECK_NCCL(ncclDevCommCreate(comm, &reqs, &dev));
    int dev_refused = ncclDevCommCreate(comm, NULL, &dev) != ncclSuccess; /* no requirements */
    CHECK_NCCL(ncclAllReduce(buf, buf, COUNT, ncclFloat32, ncclSum, comm, s));
    CHECK_NCCL(ncclDevCommDestroy(comm, &dev));
    CHECK_NCCL(ncclCommWindowDeregister(comm, win));
    CHECK_NCCL(ncclCommDeregister(comm, handle));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommSuspend(comm, 1));
    int refused = ncclCommSuspend(comm, 1) != ncclSuccess; /* already suspended */
    CHECK_NCCL(ncclCommResume(comm));
    CHECK_NCCL(ncclAllReduce(buf, buf, COUNT, ncclFloat32, ncclSum, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommRevoke(comm, 0));
    CHECK_NCCL(ncclCommDestroy(comm));
    CHECK_NCCL(ncclMemFree(buf));
    printf("{\"result\": \"refused\", \"code\": %d}\n", refused);
    printf("{\"result\": \"dev_refused\", \"code\": %d}\n", dev_refused);
    expect_calls("init", 0, "AllReduce", 2);
    expect_entry("ncclMemAlloc", 1, 0);
    expect_entry("ncclCommRegister", 1, 0);
    expect_entry("ncclCommDeregister", 1, 0);
    expect_entry("ncclCommWindowRegister", 1, 0);
    expect_entry("ncclCommWindowDeregister", 1, 0);
    expect_entry("ncclDevCommCreate", 2, 1);
    expect_entry("ncclDevCommDestroy", 1, 0);
    expect_entry("ncclCommSuspend", 2, 1);
    expect_entry("ncclCommResume", 1, 0);
    expect_entry("ncclCommRevoke", 1, 0);
    /* ncclMemFree comes after the last communicator's end, when the file
     * is written at exit: counted there too. */
    expect_entry("ncclMemFree", 1, 0);
    return 0;
}

/* A per-op log field with a number for a value. */
static void expect_ops_number(const char *key, long long value, int n)
{
    printf("{\"expect\": \"ops_field\", \"key\": \"%s\", \"value\": %lld, \"n\": %d}\n", key, value, n);
}

#define WAIT_MS 30

static int scenario_onesided(void)
{
    ncclComm_t comm[2];
    CHECK_NCCL(ncclCommInitAll(comm, 2, NULL));
    CUstream s[2];
    void *buf[2];
    ncclWindow_t win[2];
    for (int r = 0; r < 2; r++) {
        s[r] = app_stream_on(r);
        buf[r] = app_buffer(COUNT * 4);
    }
    /* Window registration is collective: both ranks in one group. */
    CHECK_NCCL(ncclGroupStart());
    for (int r = 0; r < 2; r++)
        CHECK_NCCL(ncclCommWindowRegister(comm[r], buf[r], COUNT * 4, &win[r], 0));
    CHECK_NCCL(ncclGroupEnd());
    ncclWaitSignalDesc_t from0 = {1, 0, 0, 0}, from1 = {1, 1, 0, 0};

    /* Rank 1 waits; rank 0 puts 30 ms later: the wait lasts that long. */
    CHECK_NCCL(ncclWaitSignal(1, &from0, comm[1], s[1]));
    nanosleep(&(struct timespec){0, WAIT_MS * 1000000L}, NULL);
    CHECK_NCCL(ncclPutSignal(buf[0], COUNT, ncclFloat32, 1, win[1], 0, 0, 0, 0, comm[0], s[0]));
    CHECK_NCCL(ncclSignal(1, 0, 0, 0, comm[0], s[0]));
    CHECK_NCCL(ncclWaitSignal(1, &from0, comm[1], s[1]));

    CHECK_NCCL(ncclGroupStart());
    CHECK_NCCL(ncclPutSignal(buf[0], COUNT, ncclFloat32, 1, win[1], 0, 0, 0, 0, comm[0], s[0]));
    CHECK_NCCL(ncclPutSignal(buf[1], COUNT, ncclFloat32, 0, win[0], 0, 0, 0, 0, comm[1], s[1]));
    CHECK_NCCL(ncclWaitSignal(1, &from1, comm[0], s[0]));
    CHECK_NCCL(ncclWaitSignal(1, &from0, comm[1], s[1]));
    CHECK_NCCL(ncclGroupEnd());
    for (int r = 0; r < 2; r++)
        CHECK_CU(cu.cuStreamSynchronize(s[r]));

    /* Refused by NCCL (signal index 1; no such peer; no descriptor). */
    printf("{\"result\": \"put_refused\", \"code\": %d}\n",
           ncclPutSignal(buf[0], COUNT, ncclFloat32, 1, win[1], 0, 1, 0, 0, comm[0], s[0]));
    printf("{\"result\": \"signal_refused\", \"code\": %d}\n", ncclSignal(2, 0, 0, 0, comm[0], s[0]));
    printf("{\"result\": \"wait_refused\", \"code\": %d}\n", ncclWaitSignal(0, NULL, comm[1], s[1]));

    CHECK_NCCL(ncclGroupStart());
    for (int r = 0; r < 2; r++)
        CHECK_NCCL(ncclCommWindowDeregister(comm[r], win[r]));
    CHECK_NCCL(ncclGroupEnd());
    for (int r = 0; r < 2; r++)
        CHECK_NCCL(ncclCommDestroy(comm[r]));
    expect_calls("initall", 0, "PutSignal", 2);
    expect_calls("initall", 0, "Signal", 1);
    expect_calls("initall", 0, "WaitSignal", 1);
    expect_calls("initall", 1, "PutSignal", 1);
    expect_calls("initall", 1, "WaitSignal", 3);
    expect_total("calls", 11);
    expect_total("failed", 3);
    /* What was put to whom, and whose signals each wait waited for. */
    expect_ops_number("peer", 1, 4);
    expect_ops_number("peer", 0, 4);
    expect_ops_number("bytes", COUNT * 4, 3);
    expect_ops_field("op", "WaitSignal", 4);
    printf("{\"expect\": \"ops_duration\", \"op\": \"WaitSignal\", \"min_ns\": %d, \"n\": 1}\n",
           (WAIT_MS - 5) * 1000000);
    expect_entry("ncclCommWindowRegister", 2, 0);
    expect_entry("ncclCommWindowDeregister", 2, 0);
    return 0;
}

static int scenario_onesided_hang(void)
{
    ncclComm_t comm[2];
    CHECK_NCCL(ncclCommInitAll(comm, 2, NULL));
    CUstream s = app_stream_on(1);
    ncclWaitSignalDesc_t from0 = {1, 0, 0, 0};
    CHECK_NCCL(ncclWaitSignal(1, &from0, comm[1], s));
    nanosleep(&(struct timespec){2, 500000000L}, NULL);
    for (int r = 0; r < 2; r++)
        CHECK_NCCL(ncclCommAbort(comm[r]));
    expect_calls("initall", 1, "WaitSignal", 1);
    expect_total("calls", 1);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: entry_points pnccl|config|premulsum|events|onesided|onesided_hang\n");
        return 2;
    }
    app_cuda_init();
    if (!strcmp(argv[1], "pnccl"))
        return scenario_pnccl();
    if (!strcmp(argv[1], "events"))
        return scenario_events();
    if (!strcmp(argv[1], "premulsum"))
        return scenario_premulsum();
    if (!strcmp(argv[1], "config"))
        return scenario_config();
    if (!strcmp(argv[1], "onesided"))
        return scenario_onesided();
    if (!strcmp(argv[1], "onesided_hang"))
        return scenario_onesided_hang();
    fprintf(stderr, "entry_points: unknown scenario %s\n", argv[1]);
    return 2;
}
