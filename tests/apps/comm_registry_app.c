/* Communicators made, used and destroyed the hard ways, for the tests of
 * the shim's communicator registry (tests/apps/comm_check.py checks what the
 * shim wrote). Prints what it did, one JSON object a line:
 *   {"expect": "comm", "name": N, "ranks": R, "calls": C}
 *       R communicators named N, one per rank, with C calls each
 *   {"expect": "total", "key": K, "n": N}     totals.K summed over the files
 *                                               (and in the report's totals, for
 *                                               comms_past_limit)
 *   {"expect": "at_least", "key": K, "n": N}  totals.K >= N
 *
 * Usage: comm_registry_app SCENARIO
 *   churn      4 threads x 60 rounds: InitAll, a split in a group, grouped
 *              calls on the children, Destroy and Abort. Threads' groups
 *              overlap, and NCCL's allocator hands destroyed handles out again.
 *   many       5,000 one-rank communicators, one after another: 904 past
 *              the shim's bound.
 *   no_memory  communicator records cannot be allocated (alloc_fail.c).
 *   no_memory_groups  the reducer cannot gather a group's calls. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "base/op_record.h"
#include "nccl_app.h"
#include "state/comm_registry.h"

#define COUNT 256

static void expect_comm(const char *name, int ranks, int calls)
{
    printf("{\"expect\": \"comm\", \"name\": \"%s\", \"ranks\": %d, \"calls\": %d}\n", name, ranks, calls);
}

static void expect_total(const char *how, const char *key, long n)
{
    printf("{\"expect\": \"%s\", \"key\": \"%s\", \"n\": %ld}\n", how, key, n);
}

static ncclConfig_t named(const char *name)
{
    return (ncclConfig_t){sizeof(ncclConfig_t), 0xcafebeef, 22700, -1, -1, -1, -1, NULL, -1, -1, name};
}

/* ---- churn ---- */

enum { THREADS = 4, ROUNDS = 60, NDEV = 2 };

/* Handles destroyed so far, to tell whether NCCL handed one out again. */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static ncclComm_t destroyed[THREADS * ROUNDS * 2 * NDEV];
static unsigned ndestroyed, reused;

static void note_new(ncclComm_t c)
{
    pthread_mutex_lock(&seen_lock);
    for (unsigned i = 0; i < ndestroyed; i++)
        if (destroyed[i] == c) {
            reused++;
            break;
        }
    pthread_mutex_unlock(&seen_lock);
}

static void note_destroyed(ncclComm_t c)
{
    pthread_mutex_lock(&seen_lock);
    destroyed[ndestroyed++] = c;
    pthread_mutex_unlock(&seen_lock);
}

static void all_reduce(ncclComm_t *comms, void **buf, CUstream *streams)
{
    CHECK_NCCL(ncclGroupStart());
    for (int i = 0; i < NDEV; i++)
        CHECK_NCCL(ncclAllReduce(buf[i], buf[i], COUNT, ncclFloat32, ncclSum, comms[i], streams[i]));
    CHECK_NCCL(ncclGroupEnd());
}

static void end_all(ncclComm_t *comms, CUstream *streams)
{
    for (int i = 0; i < NDEV; i++) {
        CHECK_CU(cu.cuStreamSynchronize(streams[i]));
        CHECK_NCCL(i % 2 ? ncclCommAbort(comms[i]) : ncclCommDestroy(comms[i]));
        note_destroyed(comms[i]);
    }
}

static void *churn_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    CUstream streams[NDEV];
    void *buf[NDEV];
    for (int i = 0; i < NDEV; i++) {
        streams[i] = app_stream_on(i);
        buf[i] = app_buffer(COUNT * 4);
    }
    for (int r = 0; r < ROUNDS; r++) {
        ncclComm_t parent[NDEV], child[NDEV];
        CHECK_NCCL(ncclCommInitAll(parent, NDEV, NULL));
        char name[32];
        snprintf(name, sizeof name, "t%d-r%d", t, r);
        ncclConfig_t config = named(name);
        CHECK_NCCL(ncclGroupStart());
        for (int i = 0; i < NDEV; i++)
            CHECK_NCCL(ncclCommSplit(parent[i], 0, i, &child[i], &config));
        CHECK_NCCL(ncclGroupEnd());
        for (int i = 0; i < NDEV; i++)
            note_new(child[i]);
        int calls = 1 + (t + r) % 4;
        for (int k = 0; k < calls; k++)
            all_reduce(child, buf, streams);
        all_reduce(parent, buf, streams);
        end_all(child, streams);
        end_all(parent, streams);
        expect_comm(name, NDEV, calls);
    }
    return NULL;
}

static int scenario_churn(void)
{
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, churn_thread, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    if (reused == 0) {
        fprintf(stderr, "comm_registry_app: NCCL reused no destroyed handle: nothing tested\n");
        return 1;
    }
    long calls = 0;
    for (int t = 0; t < THREADS; t++)
        for (int r = 0; r < ROUNDS; r++)
            calls += NDEV * (1 + (t + r) % 4) + NDEV;
    expect_total("total", "calls", calls);
    return 0;
}

/* ---- one-rank communicators, one after another ---- */

static long one_rank_comms(int n, int calls_of(int i), const char *prefix)
{
    CUstream s = app_stream_on(0);
    void *b = app_buffer(COUNT * 4);
    long total = 0;
    for (int i = 0; i < n; i++) {
        ncclUniqueId id;
        ncclComm_t comm;
        char name[32];
        snprintf(name, sizeof name, "%s%d", prefix, i);
        ncclConfig_t config = named(name);
        CHECK_NCCL(ncclGetUniqueId(&id));
        CHECK_NCCL(ncclCommInitRankConfig(&comm, 1, id, 0, &config));
        for (int k = 0; k < calls_of(i); k++)
            CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
        CHECK_CU(cu.cuStreamSynchronize(s));
        CHECK_NCCL(ncclCommDestroy(comm));
        expect_comm(name, 1, calls_of(i));
        total += calls_of(i);
    }
    return total;
}

static int one_to_three(int i) { return 1 + i % 3; }
static int hundred(int i) { (void)i; return 100; }

static int scenario_many(void)
{
    enum { MANY = 5000 };
    expect_total("total", "calls", one_rank_comms(MANY, one_to_three, "c"));
    expect_total("total", "comms_past_limit", MANY - TAP_COMM_MAX);
    return 0;
}

/* ---- no memory ---- */

static void (*arm_failure(void))(size_t, long)
{
    void (*arm)(size_t, long) = (void (*)(size_t, long))dlsym(RTLD_DEFAULT, "alloc_fail_arm");
    if (!arm) {
        fprintf(stderr, "comm_registry_app: run it with tests/apps/alloc_fail.c preloaded\n");
        exit(1);
    }
    return arm;
}

/* The first communicator's record is allocated, the next 10 are not. */
static int scenario_no_memory(void)
{
    arm_failure()(sizeof(struct tap_comm), 1);
    expect_total("total", "calls", one_rank_comms(11, hundred, "n"));
    expect_total("at_least", "no_memory", 1);
    return 0;
}

/* The reducer gathers a group's calls in an array that starts at 64
 * records: it cannot be allocated. */
static int scenario_no_memory_groups(void)
{
    CUstream streams[NDEV];
    void *buf[NDEV];
    ncclComm_t comms[NDEV];
    for (int i = 0; i < NDEV; i++) {
        streams[i] = app_stream_on(i);
        buf[i] = app_buffer(COUNT * 4);
    }
    CHECK_NCCL(ncclCommInitAll(comms, NDEV, NULL));
    arm_failure()(64 * sizeof(struct tap_op_rec), 0);
    enum { GROUPS = 500 };
    for (int k = 0; k < GROUPS; k++)
        all_reduce(comms, buf, streams);
    end_all(comms, streams);
    expect_total("total", "calls", GROUPS * NDEV);
    expect_total("at_least", "no_memory", 1);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(void);
    } scenarios[] = {{"churn", scenario_churn}, {"many", scenario_many}, {"no_memory", scenario_no_memory},
                     {"no_memory_groups", scenario_no_memory_groups}};
    app_cuda_init();
    for (size_t i = 0; argc == 2 && i < sizeof scenarios / sizeof *scenarios; i++)
        if (!strcmp(argv[1], scenarios[i].name))
            return scenarios[i].run();
    fprintf(stderr, "usage: comm_registry_app churn|many|no_memory|no_memory_groups\n");
    return 2;
}
