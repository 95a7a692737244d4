/* Calls every wrapped NCCL function the way applications do, and prints
 * what it did as expectations, one JSON object a line:
 *   {"expect": "calls", "origin": O, "rank": R, "op": OP, "n": N}
 *   {"expect": "totals", "key": K, "n": N}
 * tests/check_expect.py compares them with what the shim wrote.
 *
 * Usage: api_exercise SCENARIO   (scenarios below, in main) */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nccl_app.h"

#define NDEV 4
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

/* One process holding 4 ranks (ncclCommInitAll): every collective in a group
 * across the 4 communicators, P2P in a ring, ungrouped calls, a split, and
 * calls NCCL rejects. */
static int scenario_api(void)
{
    ncclComm_t comms[NDEV];
    CUstream streams[NDEV];
    void *buf[NDEV];
    for (int i = 0; i < NDEV; i++) {
        streams[i] = app_stream_on(i);
        buf[i] = app_buffer(COUNT * 8 * NDEV);
    }
    CHECK_NCCL(ncclCommInitAll(comms, NDEV, NULL));
#define EACH_IN_GROUP(stmt)                                \
    do {                                                   \
        CHECK_NCCL(ncclGroupStart());                      \
        for (int i = 0; i < NDEV; i++)                     \
            CHECK_NCCL(stmt);                              \
        CHECK_NCCL(ncclGroupEnd());                        \
    } while (0)
    EACH_IN_GROUP(ncclAllReduce(buf[i], buf[i], COUNT, ncclFloat32, ncclSum, comms[i], streams[i]));
    EACH_IN_GROUP(ncclAllGather(buf[i], buf[i], COUNT, ncclFloat32, comms[i], streams[i]));
    EACH_IN_GROUP(ncclReduceScatter(buf[i], buf[i], COUNT, ncclFloat32, ncclSum, comms[i], streams[i]));
    EACH_IN_GROUP(ncclBroadcast(buf[i], buf[i], COUNT, ncclFloat32, 0, comms[i], streams[i]));
    EACH_IN_GROUP(ncclBcast(buf[i], COUNT, ncclFloat32, 0, comms[i], streams[i]));
    EACH_IN_GROUP(ncclReduce(buf[i], buf[i], COUNT, ncclFloat32, ncclMax, 1, comms[i], streams[i]));
    EACH_IN_GROUP(ncclAlltoAll(buf[i], buf[i], COUNT, ncclFloat32, comms[i], streams[i]));
    EACH_IN_GROUP(ncclGather(buf[i], buf[i], COUNT, ncclFloat32, 0, comms[i], streams[i]));
    EACH_IN_GROUP(ncclScatter(buf[i], buf[i], COUNT, ncclFloat32, 0, comms[i], streams[i]));
    /* A ring of sends and receives; nested groups count as one. */
    CHECK_NCCL(ncclGroupStart());
    for (int i = 0; i < NDEV; i++) {
        CHECK_NCCL(ncclGroupStart());
        CHECK_NCCL(ncclSend(buf[i], COUNT, ncclInt8, (i + 1) % NDEV, comms[i], streams[i]));
        CHECK_NCCL(ncclRecv(buf[i], COUNT, ncclInt8, (i + NDEV - 1) % NDEV, comms[i], streams[i]));
        CHECK_NCCL(ncclGroupEnd());
    }
    CHECK_NCCL(ncclGroupEnd());
    /* A simulated group: the calls are made, nothing runs. */
    ncclSimInfo_t sim = {sizeof(ncclSimInfo_t), 0x74685283, 23000, -1.0f};
    CHECK_NCCL(ncclGroupStart());
    for (int i = 0; i < NDEV; i++)
        CHECK_NCCL(ncclAllGather(buf[i], buf[i], COUNT, ncclFloat32, comms[i], streams[i]));
    CHECK_NCCL(ncclGroupSimulateEnd(&sim));
    /* Ungrouped: each call its own unit. */
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < NDEV; i++)
            CHECK_NCCL(ncclAllReduce(buf[i], buf[i], COUNT, ncclBfloat16, ncclAvg, comms[i], streams[i]));
    /* Split into even and odd ranks, then use the children. */
    ncclComm_t child[NDEV];
    CHECK_NCCL(ncclGroupStart());
    for (int i = 0; i < NDEV; i++)
        CHECK_NCCL(ncclCommSplit(comms[i], i % 2, i, &child[i], NULL));
    CHECK_NCCL(ncclGroupEnd());
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < NDEV; i++)
            CHECK_NCCL(ncclAllReduce(buf[i], buf[i], COUNT, ncclFloat64, ncclSum, child[i], streams[i]));
    /* Calls NCCL rejects come back with NCCL's own code. */
    ncclResult_t bad_comm = ncclAllReduce(buf[0], buf[0], COUNT, ncclFloat32, ncclSum, NULL, streams[0]);
    ncclResult_t bad_type = ncclAllReduce(buf[0], buf[0], COUNT, (ncclDataType_t)99, ncclSum, comms[0], streams[0]);
    ncclResult_t bad_root = ncclBroadcast(buf[0], buf[0], COUNT, ncclFloat32, 7, comms[0], streams[0]);
    printf("{\"result\": \"null_comm\", \"code\": %d}\n{\"result\": \"bad_dtype\", \"code\": %d}\n"
           "{\"result\": \"bad_root\", \"code\": %d}\n", bad_comm, bad_type, bad_root);
    for (int i = 0; i < NDEV; i++) {
        CHECK_CU(cu.cuStreamSynchronize(streams[i]));
        CHECK_NCCL(ncclCommDestroy(child[i]));
        CHECK_NCCL(ncclCommFinalize(comms[i]));
        CHECK_NCCL(ncclCommDestroy(comms[i]));
    }
    static const char *const coll[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast",
                                       "Reduce", "AlltoAll", "Gather", "Scatter"};
    for (int r = 0; r < NDEV; r++) {
        for (unsigned k = 0; k < sizeof coll / sizeof *coll; k++) {
            int n = !strcmp(coll[k], "AllReduce") ? 1 + 3 : !strcmp(coll[k], "Broadcast") ? 2 : 1;
            expect_calls("initall", r, coll[k], n);
        }
        expect_calls("initall", r, "Send", 1);
        expect_calls("initall", r, "Recv", 1);
    }
    /* Children: ranks 0 and 1 of two communicators, 2 calls on each rank. */
    expect_calls("split", 0, "AllReduce", 4);
    expect_calls("split", 1, "AllReduce", 4);
    /* The rejected calls: NULL comm is not attributed; the other two are. */
    expect_total("failed", 2);
    expect_total("simulated", NDEV); /* made, never run: in no row */
    return 0;
}

/* Several threads, each with its own communicator. */
struct thread_arg {
    ncclUniqueId id;
    int calls;
    int named;
};

static void *thread_main(void *p)
{
    struct thread_arg *a = p;
    CUstream s = app_stream_on(0);
    void *b = app_buffer(COUNT * 4);
    ncclComm_t comm;
    /* The last thread names its communicator, as NCCL 2.27+ allows. */
    ncclConfig_t config = {sizeof config, 0xcafebeef, 22700, -1, -1, -1, -1, NULL, -1, -1, "tensor-parallel"};
    if (a->named)
        CHECK_NCCL(ncclCommInitRankConfig(&comm, 1, a->id, 0, &config));
    else
        CHECK_NCCL(ncclCommInitRank(&comm, 1, a->id, 0));
    for (int k = 0; k < a->calls; k++)
        CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommDestroy(comm));
    return NULL;
}

static int scenario_threads(void)
{
    enum { T = 4 };
    pthread_t th[T];
    struct thread_arg args[T];
    for (int t = 0; t < T; t++) {
        CHECK_NCCL(ncclGetUniqueId(&args[t].id));
        args[t].calls = 10 * (t + 1);
        args[t].named = t == T - 1;
        pthread_create(&th[t], NULL, thread_main, &args[t]);
    }
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    expect_calls("init", 0, "AllReduce", 10 + 20 + 30);
    expect_calls("config", 0, "AllReduce", 40);
    printf("{\"expect\": \"comm_name\", \"name\": \"tensor-parallel\", \"calls\": 40}\n");
    expect_total("calls", 100);
    return 0;
}

/* Threads that come and go: `n` threads one after another, 100 ms apart
 * (the reducer gives a completed op's events back within its 20 ms poll),
 * each making 3 AllReduces on one communicator and stream, then ending.
 * Under NCCLTAP_TIMING=all each ends holding the end event of its last
 * op, kept for a next op that never comes: the shim must give it back,
 * or a pool of fewer events than threads runs dry (calls untimed). */
struct churn_arg {
    ncclComm_t comm;
    CUstream s;
    void *b;
};

static void *churn_main(void *p)
{
    struct churn_arg *a = p;
    CUcontext ctx;
    CHECK_CU(cu.cuDevicePrimaryCtxRetain(&ctx, 0));
    CHECK_CU(cu.cuCtxSetCurrent(ctx));
    for (int k = 0; k < 3; k++)
        CHECK_NCCL(ncclAllReduce(a->b, a->b, COUNT, ncclFloat32, ncclSum, a->comm, a->s));
    CHECK_CU(cu.cuStreamSynchronize(a->s));
    return NULL;
}

static int scenario_thread_churn(int n)
{
    struct churn_arg a = {NULL, app_stream_on(0), app_buffer(COUNT * 4)};
    ncclUniqueId id;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&a.comm, 1, id, 0));
    for (int t = 0; t < n; t++) {
        pthread_t th;
        if (pthread_create(&th, NULL, churn_main, &a) != 0)
            return 1;
        pthread_join(th, NULL);
        struct timespec gap = {0, 100 * 1000 * 1000};
        nanosleep(&gap, NULL);
    }
    CHECK_NCCL(ncclCommDestroy(a.comm));
    expect_calls("init", 0, "AllReduce", 3 * n);
    expect_total("calls", 3 * n);
    return 0;
}

/* A one-rank communicator on device 0, with a stream and a buffer. */
struct one_rank {
    CUstream s;
    void *b;
    ncclComm_t comm;
};

static struct one_rank one_rank_open(void)
{
    struct one_rank o = {app_stream_on(0), app_buffer(COUNT * 8), NULL};
    ncclUniqueId id;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&o.comm, 1, id, 0));
    return o;
}

/* `n` AllReduces of `dtype` on o's communicator, then its stream synchronized. */
static void one_rank_calls(const struct one_rank *o, int n, ncclDataType_t dtype)
{
    for (int k = 0; k < n; k++)
        CHECK_NCCL(ncclAllReduce(o->b, o->b, COUNT, dtype, ncclSum, o->comm, o->s));
    CHECK_CU(cu.cuStreamSynchronize(o->s));
}

/* A one-rank communicator and `n` AllReduces on it. */
static void one_rank_run(int n, ncclDataType_t dtype)
{
    struct one_rank o = one_rank_open();
    one_rank_calls(&o, n, dtype);
    CHECK_NCCL(ncclCommDestroy(o.comm));
}

/* fork: the child's calls are the child's, in its own file. */
static int scenario_fork(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        app_cuda_init();
        one_rank_run(5, ncclFloat32);
        exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    app_cuda_init();
    one_rank_run(3, ncclFloat32);
    expect_calls("init", 0, "AllReduce", 8);
    expect_total("files", 2);
    return 0;
}

/* A child that closed stderr (as daemons do) and whose next file, its
 * data, got descriptor 2: its calls, its data written, an ordinary exit.
 * nccltap's exit line must not land in that file. */
static int scenario_closed_stderr(void)
{
    char path[] = "/tmp/api_exercise_data.XXXXXX";
    int keep = mkstemp(path);
    if (keep < 0)
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(STDERR_FILENO);
        if (open(path, O_WRONLY | O_TRUNC) != STDERR_FILENO)
            _exit(3);
        app_cuda_init();
        one_rank_run(5, ncclFloat32);
        if (write(STDERR_FILENO, "DATA\n", 5) != 5)
            _exit(4);
        exit(0);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    char got[256] = "";
    ssize_t n = pread(keep, got, sizeof got - 1, 0);
    close(keep);
    unlink(path);
    printf("{\"result\": \"data_file_kept\", \"code\": %d}\n", n == 5 && !memcmp(got, "DATA\n", 5));
    expect_calls("init", 0, "AllReduce", 5);
    return 0;
}

/* Forked ranks that end with _exit right after ncclCommDestroy, as Python
 * multiprocessing's fork start method ends its workers: no exit handler
 * runs, so each child's file (and per-op log, with NCCLTAP_OPS_JSONL) is
 * what nccltap wrote at its last communicator's end. */
static int scenario_fork_exit(void)
{
    enum { CHILDREN = 3, CALLS = 7 };
    for (int i = 0; i < CHILDREN; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            app_cuda_init();
            one_rank_run(CALLS, ncclFloat32);
            _exit(0);
        }
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return 1;
    }
    expect_calls("init", 0, "AllReduce", CHILDREN * CALLS);
    expect_total("files", CHILDREN);
    const char *log = getenv("NCCLTAP_OPS_JSONL"), *timing = getenv("NCCLTAP_TIMING");
    if (log && !strcmp(log, "1") && timing && !strcmp(timing, "all"))
        printf("{\"expect\": \"ops_lines\", \"n\": %d}\n", CHILDREN * CALLS);
    return 0;
}

/* Names that are not plain ASCII: one whose 63-byte cut falls inside "é",
 * one with bytes that are not UTF-8, one with a terminal escape, one with
 * a quote, a backslash and a newline. The rank file must stay valid JSON
 * (cut at a character, U+FFFD, escaped), the Prometheus file valid text. */
static int scenario_names(void)
{
    static const struct {
        const char *given, *written; /* given: bytes; written: as JSON text */
        int calls;
    } names[] = {
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9",
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1},
        {"caf\xc3\xa9-\xff\xfe-\xe2\x82", "caf\\u00e9-\\ufffd\\ufffd-\\ufffd\\ufffd", 2},
        {"esc\x1b[31mred", "esc\\u001b[31mred", 3},
        /* What the Prometheus text format escapes in a label value. */
        {"q\"b\\s\nl", "q\\\"b\\\\s\\nl", 4},
    };
    CUstream s = app_stream_on(0);
    void *b = app_buffer(COUNT * 4);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        ncclUniqueId id;
        ncclComm_t comm;
        ncclConfig_t config = {sizeof config, 0xcafebeef, 22700, -1, -1, -1, -1, NULL, -1, -1, names[i].given};
        CHECK_NCCL(ncclGetUniqueId(&id));
        CHECK_NCCL(ncclCommInitRankConfig(&comm, 1, id, 0, &config));
        for (int k = 0; k < names[i].calls; k++)
            CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
        CHECK_CU(cu.cuStreamSynchronize(s));
        CHECK_NCCL(ncclCommDestroy(comm));
        printf("{\"expect\": \"comm_name\", \"name\": \"%s\", \"calls\": %d}\n", names[i].written,
               names[i].calls);
    }
    expect_calls("config", 0, "AllReduce", 10);
    return 0;
}

/* fork() after NCCL init, with per-op log lines still in memory: the
 * child exits through exit() (stdio flushed) and must not write them
 * again; it starts empty. */
static int scenario_fork_after_init(int n)
{
    struct one_rank o = one_rank_open();
    one_rank_calls(&o, n, ncclFloat32);
    usleep(100 * 1000); /* the reducer has the lines, the interval is far */
    pid_t pid = fork();
    if (pid == 0)
        exit(0);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    CHECK_NCCL(ncclCommDestroy(o.comm));
    expect_calls("init", 0, "AllReduce", n);
    expect_total("files", 1);
    printf("{\"expect\": \"ops_lines\", \"n\": %d}\n", n);
    return 0;
}

/* Ops issued while the stream is captured into a CUDA graph. */
static int scenario_capture(void)
{
    struct one_rank o = one_rank_open();
    CUstream s = o.s;
    void *b = o.b;
    ncclComm_t comm = o.comm;
    CHECK_CU(cu.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    for (int k = 0; k < 4; k++)
        CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
    CUgraph g;
    CHECK_CU(cu.cuStreamEndCapture(s, &g));
    for (int k = 0; k < 2; k++)
        CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommDestroy(comm));
    expect_calls("init", 0, "AllReduce", 6);
    expect_total("captured", 4);
    return 0;
}

/* Functions the legacy NCCL lacks: an error code, never a crash. */
static int scenario_legacy(void)
{
    struct one_rank o = one_rank_open();
    CUstream s = o.s;
    void *b = o.b;
    ncclComm_t comm = o.comm, shrunk = NULL;
    ncclResult_t a2a = ncclAlltoAll(b, b, COUNT, ncclFloat32, comm, s);
    ncclResult_t a2a_again = ncclAlltoAll(b, b, COUNT, ncclFloat32, comm, s);
    ncclResult_t shrink = ncclCommShrink(comm, NULL, 0, &shrunk, NULL, 0);
    CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommDestroy(comm));
    printf("{\"result\": \"alltoall\", \"code\": %d}\n{\"result\": \"alltoall_again\", \"code\": %d}\n"
           "{\"result\": \"shrink\", \"code\": %d}\n", a2a, a2a_again, shrink);
    expect_calls("init", 0, "AllReduce", 1);
    return 0;
}

/* A non-blocking communicator (config.blocking = 0): calls may return
 * ncclInProgress, and NCCL may enqueue the work later, so nccltap counts
 * them but cannot time them. */
static int scenario_nonblocking(void)
{
    CUstream s = app_stream_on(0);
    void *b = app_buffer(COUNT * 4);
    ncclUniqueId id;
    ncclComm_t comm;
    ncclConfig_t config = {sizeof config, 0xcafebeef, 22700, 0, -1, -1, -1, NULL, -1, -1, NULL};
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRankConfig(&comm, 1, id, 0, &config));
    int in_progress = 0;
    for (int k = 0; k < 5; k++) {
        ncclResult_t r = ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s);
        if (r != ncclSuccess && r != ncclInProgress)
            return 1;
        in_progress += r == ncclInProgress;
    }
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommDestroy(comm));
    printf("{\"result\": \"in_progress\", \"code\": %d}\n", in_progress);
    expect_calls("config", 0, "AllReduce", 5);
    expect_total("timed", 0);
    expect_total("untimed", 5);
    return 0;
}

/* `n` calls as fast as the caller can make them. */
static int scenario_burst(int n)
{
    one_rank_run(n, ncclInt8);
    expect_total("calls", n);
    return 0;
}

/* Work that never completes (NCCLSIM_HANG_*), then exit. */
static int scenario_exit_pending(void)
{
    struct one_rank o = one_rank_open();
    CUstream s = o.s;
    void *b = o.b;
    ncclComm_t comm = o.comm;
    for (int k = 0; k < 5; k++)
        CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
    expect_calls("init", 0, "AllReduce", 5);
    expect_total("timed", 2);   /* ops 0 and 1 complete (NCCLSIM_HANG_SEQ=2) */
    expect_total("pending", 3); /* 2, 3 and 4 never do */
    return 0; /* no synchronize, no destroy: exit with work in flight */
}

/* The voluntary context switches of every thread of this process but
 * the calling one: the wake-ups of the shim's (and the simulator's). */
static long others_wakeups(void)
{
    char path[300], line[128];
    long total = 0;
    pid_t self = (pid_t)syscall(SYS_gettid);
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == self)
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "voluntary_ctxt_switches:", 24))
                total += atol(line + 24);
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return total;
}

/* A burst, then 3 s with the communicator alive and nothing called (an
 * evaluation, a checkpoint, a server between requests): the last ops of
 * the burst wait for the next call's marks, and the shim's reducer must
 * back off meanwhile, not poll every NCCLTAP_POLL_US (1,000 times a
 * second: 2,700 wake-ups in 3 s, about 150 backing off). */
static int scenario_idle(void)
{
    struct one_rank o = one_rank_open();
    one_rank_calls(&o, 200, ncclFloat32);
    sleep(1);
    long before = others_wakeups();
    sleep(2);
    long wakeups = others_wakeups() - before;
    fprintf(stderr, "api_exercise idle: %ld wake-ups of the other threads in 2 s\n", wakeups);
    printf("{\"result\": \"idle_backs_off\", \"code\": %d}\n", wakeups < 600);
    CHECK_NCCL(ncclCommDestroy(o.comm));
    expect_calls("init", 0, "AllReduce", 200);
    return 0;
}

/* `n` calls, their stream synchronized, then exit with the communicator
 * alive (no ncclCommDestroy: common under PyTorch): every call ran. */
static int scenario_exit_alive(int n)
{
    struct one_rank o = one_rank_open();
    one_rank_calls(&o, n, ncclFloat32);
    expect_calls("init", 0, "AllReduce", n);
    return 0;
}

/* Exit-time cleanup registered before the first communicator, so that it
 * runs after nccltap's exit handler (registered then): 3 calls in main,
 * 10 more and the destroy in the cleanup, which the final file cannot
 * hold and nccltap says at unload. */
static struct one_rank late_rank;
static void late_cleanup(void)
{
    one_rank_calls(&late_rank, 10, ncclFloat32);
    CHECK_NCCL(ncclCommDestroy(late_rank.comm));
}

static int scenario_atexit_late(void)
{
    atexit(late_cleanup);
    late_rank = one_rank_open();
    one_rank_calls(&late_rank, 3, ncclFloat32);
    expect_calls("init", 0, "AllReduce", 3); /* those the files can hold */
    return 0;
}

/* A program that changes its working directory to `dir` before its first
 * call: a relative NCCLTAP_DIR is where it started. */
static int scenario_chdir(const char *dir)
{
    if (chdir(dir) != 0)
        return 1;
    one_rank_run(3, ncclFloat32);
    expect_calls("init", 0, "AllReduce", 3);
    return 0;
}

/* Keeps running across several intervals, and looks for its own file. */
static int scenario_interval(void)
{
    one_rank_run(3, ncclFloat32);
    usleep(600 * 1000);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls \"%s\"/nccltap-*-%d.json >/dev/null 2>&1", getenv("NCCLTAP_DIR"), getpid());
    printf("{\"result\": \"file_before_exit\", \"code\": %d}\n", system(cmd) == 0);
    expect_calls("init", 0, "AllReduce", 3);
    return 0;
}

/* Runs a program once the shim has its files open (the output directory,
 * the rank, per-op and log files): none of their descriptors may reach it
 * (O_CLOEXEC). The program counts its descriptors into NCCLTAP_DIR. */
static int scenario_exec(void)
{
    one_rank_run(3, ncclFloat32);
    usleep(600 * 1000); /* several intervals: every file written once */
    int n = system("n=0; for f in /proc/$$/fd/*; do "
                   "case $(readlink \"$f\") in \"$NCCLTAP_DIR\"*) n=$((n + 1));; esac; done; exit $n");
    printf("{\"result\": \"fds_in_child\", \"code\": %d}\n", WIFEXITED(n) ? WEXITSTATUS(n) : -1);
    expect_calls("init", 0, "AllReduce", 3);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: api_exercise api|threads|thread-churn N|fork|capture|legacy|burst N|exit-pending|exit-alive N|interval|idle|atexit-late|chdir DIR|exec|nonblocking|names|fork-after-init|fork-_exit|closed-stderr\n");
        return 2;
    }
    const char *s = argv[1];
    if (!strcmp(s, "fork"))
        return scenario_fork(); /* CUDA only in the children of fork */
    if (!strcmp(s, "fork-_exit"))
        return scenario_fork_exit();
    if (!strcmp(s, "closed-stderr"))
        return scenario_closed_stderr(); /* CUDA only in the child */
    app_cuda_init();
    if (!strcmp(s, "api"))
        return scenario_api();
    if (!strcmp(s, "threads"))
        return scenario_threads();
    if (!strcmp(s, "capture"))
        return scenario_capture();
    if (!strcmp(s, "legacy"))
        return scenario_legacy();
    if (!strcmp(s, "thread-churn") && argc > 2)
        return scenario_thread_churn(atoi(argv[2]));
    if (!strcmp(s, "burst") && argc > 2)
        return scenario_burst(atoi(argv[2]));
    if (!strcmp(s, "exit-pending"))
        return scenario_exit_pending();
    if (!strcmp(s, "interval"))
        return scenario_interval();
    if (!strcmp(s, "idle"))
        return scenario_idle();
    if (!strcmp(s, "atexit-late"))
        return scenario_atexit_late();
    if (!strcmp(s, "chdir") && argc > 2)
        return scenario_chdir(argv[2]);
    if (!strcmp(s, "exit-alive") && argc > 2)
        return scenario_exit_alive(atoi(argv[2]));
    if (!strcmp(s, "exec"))
        return scenario_exec();
    if (!strcmp(s, "nonblocking"))
        return scenario_nonblocking();
    if (!strcmp(s, "names"))
        return scenario_names();
    if (!strcmp(s, "fork-after-init"))
        return scenario_fork_after_init(200);
    fprintf(stderr, "api_exercise: unknown scenario %s\n", s);
    return 2;
}
