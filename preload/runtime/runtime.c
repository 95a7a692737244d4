#include "runtime/runtime.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "writers/callsite_out.h"
#include "state/entry_events.h"
#include "state/step_marks.h"
#include "state/comm_parked.h"
#include "state/comm_registry.h"
#include "state/graph_table.h"
#include "base/config.h"
#include "base/process.h"
#include "cuda/gpu_timing.h"
#include "reducer/hang.h"
#include "base/log.h"
#include "base/monotonic.h"
#include "base/mpmc_queue.h"
#include "base/op_record.h"
#include "writers/ops_bound.h"
#include "writers/ops_file.h"
#include "writers/ops_log.h"
#include "writers/output.h"
#include "writers/prom_file.h"
#include "writers/rank_file.h"
#include "writers/tracing.h"
#include "reducer/os_switch.h"
#include "reducer/reducer.h"
#include "stats/site_stats.h"
#include "stats/stats.h"
#include "stats/steps_online.h"
#include "state/shared.h"

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_t reducer_thread;
static bool running;         /* the thread exists (start_lock) */
static _Atomic bool started; /* tap_runtime_start has run: the lock-free check */
static bool stopping;        /* wake_lock */
static uint64_t collect_deadline_ns; /* at exit: stop collecting, write */
static atomic_flag stopped = ATOMIC_FLAG_INIT;
/* tap_totals.after_exit as the final rank file has it; UINT64_MAX until it is written. */
static _Atomic uint64_t after_exit_written = UINT64_MAX;

/* Checkpoints (tap_runtime_checkpoint), under wake_lock: asked and
 * written so far, and the asker's deadline for the latest. */
static uint64_t checkpoints_asked, checkpoints_written;
static uint64_t checkpoint_deadline_ns;
static pthread_cond_t checkpoint_cond;
/* The application's time spent waiting for checkpoints, and its budget:
 * CHECKPOINT_FREE_NS, then 1/CHECKPOINT_SHARE of the process's life. A
 * process that makes and ends communicators one after another would
 * otherwise rewrite a growing rank file at each. */
#define CHECKPOINT_FREE_NS 100000000ull /* 100 ms */
#define CHECKPOINT_SHARE 32
static _Atomic uint64_t checkpoint_waited_ns;
static atomic_flag checkpoint_budget_said = ATOMIC_FLAG_INIT;

#define POLL_MIN_NS 1000000ull   /* 1 ms */
#define POLL_MAX_NS 20000000ull  /* 20 ms */

/* How long to sleep after a pass that handled `handled` records in the
 * `slept_ns` before it. Stamping ops (NCCLTAP_TIMING auto or all) while
 * the application calls NCCL or ops are on the GPU: NCCLTAP_POLL_US, the
 * resolution of the stamps, also between ops (the first poll after a call
 * bounds when its stream got to it); once QUIET_POLL_NS pass with nothing
 * new (a hang, a long op, a pause), doubling, while ops are on the GPU or
 * an op without marks of its own waits for the next call's (the host
 * paused after a burst: the first call after the pause, whose arrival a
 * straggler's lateness is measured at, is bounded by the first poll after
 * it; backing off to 20 ms there made it 20 ms wide on the simulator), up
 * to 1 ms or a QUIET_SHARE of the time nothing came, whichever is longer:
 * a pause's end is known to within 1/64 of the pause, and a job idle for
 * long (an evaluation, a checkpoint, a server between requests, a hang)
 * backs off to 20 ms instead of waking 1,000 times a second. Otherwise
 * idle: back off. Counting only: long enough to batch (each wake-up costs
 * more than a record), short enough that the queue stays under a quarter
 * full at the rate just seen. */
#define QUIET_POLL_NS 20000000ull /* 20 ms */
#define QUIET_SHARE 64
static uint64_t next_nap(uint64_t slept_ns, unsigned handled)
{
    static uint64_t quiet_ns; /* since a pass last handled something */
    quiet_ns = handled ? 0 : quiet_ns + slept_ns;
    if (tap_os_busy())
        return POLL_MIN_NS; /* context-switch records come fast: their rings must not overrun */
    uint64_t poll = (uint64_t)tap_config.poll_us * 1000;
    bool stamping = tap_config.timing != TAP_TIMING_OFF && tap_gpu_ready();
    if (stamping && quiet_ns < QUIET_POLL_NS)
        return poll;
    if (tap_reducer_has_pending() || (stamping && tap_reducer_has_waiting())) {
        uint64_t share = quiet_ns / QUIET_SHARE;
        uint64_t most = share > POLL_MAX_NS ? POLL_MAX_NS : share > POLL_MIN_NS ? share : POLL_MIN_NS;
        most = poll > most ? poll : most;
        uint64_t more = slept_ns * 2 < poll ? poll : slept_ns * 2;
        return more > most ? most : more;
    }
    if (!handled)
        return slept_ns * 2 > POLL_MAX_NS ? POLL_MAX_NS : slept_ns * 2;
    double per_ns = (double)handled / (double)(slept_ns ? slept_ns : 1);
    double nap = (double)tap_config.ring_size / 4 / per_ns;
    return nap < POLL_MIN_NS ? POLL_MIN_NS : nap > POLL_MAX_NS ? POLL_MAX_NS : (uint64_t)nap;
}

/* `ns` from now on CLOCK_MONOTONIC, as the condition variables wait. */
static struct timespec monotonic_in(uint64_t ns)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    uint64_t t = (uint64_t)until.tv_nsec + ns;
    until.tv_sec += (time_t)(t / 1000000000ull);
    until.tv_nsec = (long)(t % 1000000000ull);
    return until;
}

/* Sleeps up to `ns`, or until asked to stop or for a checkpoint. Returns
 * whether stopping; *checkpoint is the checkpoint asked, 0 if none. */
static bool nap(uint64_t ns, uint64_t *checkpoint)
{
    struct timespec until = monotonic_in(ns);
    pthread_mutex_lock(&wake_lock);
    while (!stopping && checkpoints_written == checkpoints_asked &&
           pthread_cond_timedwait(&wake, &wake_lock, &until) != ETIMEDOUT)
        ;
    bool s = stopping;
    *checkpoint = checkpoints_written != checkpoints_asked ? checkpoints_asked : 0;
    pthread_mutex_unlock(&wake_lock);
    return s;
}

static void nap_briefly(long ns)
{
    struct timespec t = {0, ns};
    nanosleep(&t, NULL);
}

/* Records one pass takes from the queue: a pass stays a few milliseconds
 * even when the reducer gets little of the CPU, so a stop request or an
 * interval never waits behind a queue that keeps refilling. */
#define PASS_RECORDS 1024u

/* Exit, with recording closed (tap_closed): the queue holds all that will
 * come but the records of the calls other threads are inside. Until the
 * collection deadline: drain it, let ops still on the GPU complete, and
 * let those calls return and reach a row (microseconds, unless NCCL itself
 * hangs). Past the deadline, what is left is in_flight in the file. Leaves
 * `snap` taken after the last pass. */
static void finish_at_exit(struct tap_snapshot *snap)
{
    while (tap_monotonic_ns() < collect_deadline_ns) {
        bool more = tap_reducer_pass(PASS_RECORDS) >= PASS_RECORDS;
        if (!more && !tap_reducer_has_pending())
            break;
        if (!more)
            nap_briefly(200000);
    }
    for (;;) {
        tap_reducer_abandon_pending();
        tap_reducer_snapshot(snap);
        if (!tap_call_tally(snap).in_flight || tap_monotonic_ns() >= collect_deadline_ns)
            return;
        nap_briefly(100000);
        tap_reducer_pass(PASS_RECORDS);
    }
}

/* Checkpoint `asked`: every communicator has ended, so every op issued
 * has (NCCL flushed or stopped them; ops after their stream's last mark
 * complete with their communicator's end, lanes.h). Until the asker's
 * deadline, drain the queue and let the ops' events complete; then write
 * what an _exit would lose, and tell the asker. */
static void write_checkpoint(struct tap_snapshot *snap, uint64_t asked)
{
    pthread_mutex_lock(&wake_lock);
    uint64_t deadline = checkpoint_deadline_ns;
    pthread_mutex_unlock(&wake_lock);
    while (tap_monotonic_ns() < deadline) {
        bool more = tap_reducer_pass(PASS_RECORDS) >= PASS_RECORDS;
        if (!more && !tap_reducer_has_pending())
            break;
        if (!more)
            nap_briefly(100000);
    }
    tap_reducer_snapshot(snap);
    tap_rank_file_write(snap, true);
    tap_ops_file_flush();
    tap_ops_log_flush();
    pthread_mutex_lock(&wake_lock);
    checkpoints_written = asked;
    pthread_cond_broadcast(&checkpoint_cond);
    pthread_mutex_unlock(&wake_lock);
}

/* At a hang, before its hang file is written: the rank file and the
 * per-op records (hang.h says why that order). */
static void write_before_hang_file(void *arg)
{
    struct tap_snapshot *snap = arg;
    tap_reducer_snapshot(snap);
    tap_rank_file_write(snap, false);
    tap_ops_file_flush();
}

static void *reducer_main(void *arg)
{
    (void)arg;
    uint64_t interval_ns = (uint64_t)tap_config.interval_ms * 1000000ull;
    uint64_t next_interval = tap_monotonic_ns() + interval_ns;
    uint64_t sleep_ns = POLL_MIN_NS;
    struct tap_snapshot snap;
    bool relaxed = false;
    tap_prom_start();
    uint64_t checkpoint;
    while (!nap(sleep_ns, &checkpoint)) {
        /* The reducer queries and synchronizes events: in the relaxed
         * capture mode, so that it never invalidates an application's
         * capture (gpu_timing.h), from its first pass with a GPU. */
        if (!relaxed && tap_gpu_ready()) {
            tap_capture_mode_exchange(CU_STREAM_CAPTURE_MODE_RELAXED);
            relaxed = true;
        }
        if (checkpoint)
            write_checkpoint(&snap, checkpoint);
        unsigned handled = tap_reducer_pass(PASS_RECORDS);
        sleep_ns = handled >= PASS_RECORDS ? 0 : next_nap(sleep_ns, handled);
        uint64_t now = tap_monotonic_ns();
        tap_os_tend(now);
        tap_hang_check(now, tap_reducer_each_pending, write_before_hang_file, &snap);
        if (now >= next_interval) {
            if (tap_gpu_ready())
                tap_pools_calibrate();
            tap_reducer_snapshot(&snap);
            tap_rank_file_write(&snap, false);
            tap_prom_write(&snap);
            tap_ops_file_flush();
            tap_ops_log_flush();
            tap_reducer_trace_stats();
            next_interval = now + interval_ns;
        }
    }
    finish_at_exit(&snap);
    tap_rank_file_write(&snap, true);
    after_exit_written = atomic_load(&tap_totals.after_exit);
    struct tap_call_tally tally = tap_call_tally(&snap);
    TAP_TRACE(process_end, tally.calls, tally.in_flight);
    /* A checkpoint asked meanwhile is this write: its asker stops waiting. */
    pthread_mutex_lock(&wake_lock);
    checkpoints_written = checkpoints_asked;
    pthread_cond_broadcast(&checkpoint_cond);
    pthread_mutex_unlock(&wake_lock);
    tap_prom_finish(&snap);
    tap_ops_file_flush();
    tap_ops_log_flush();
    tap_reducer_trace_stats();
    tap_print_summary(&snap);
    return NULL;
}

/* A process that may run on one CPU only (mpirun binds 1 or 2 processes
 * to a core each) runs nccltap's reducer there too, and NCCL's and CUDA's
 * own threads. On one H200 host, nccl-tests' 8 B all-reduce under `auto`
 * cost 1.06-1.21x bound to a core (4 batches of rounds) and 0.98x with
 * --bind-to none; moving the reducer alone to another CPU did not show
 * the difference (BENCHMARKS.md). Said once, with what helps. */
static void say_if_one_cpu(void)
{
    cpu_set_t cpus;
    if (tap_config.timing == TAP_TIMING_OFF || sched_getaffinity(0, sizeof cpus, &cpus) != 0 ||
        CPU_COUNT(&cpus) != 1)
        return;
    int cpu = 0;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &cpus))
        cpu++;
    tap_log("this process may run on one CPU only (cpu %d), which nccltap's reducer thread shares: with "
            "timing on, small ops back to back ran up to 20%% slower bound to one core than unbound "
            "(BENCHMARKS.md); bind the process to more CPUs (mpirun --bind-to socket or --bind-to none) "
            "or set NCCLTAP_TIMING=off",
            cpu);
}

void tap_runtime_start(void)
{
    if (atomic_load_explicit(&started, memory_order_acquire))
        return;
    pthread_mutex_lock(&start_lock);
    if (running) {
        pthread_mutex_unlock(&start_lock);
        return;
    }
    tap_output_note_image();
    tap_config_say_misspelled();
    struct mpmc_queue *q = atomic_load(&tap_ring);
    if (!q) {
        q = mpmc_create(tap_config.ring_size, sizeof(struct tap_record));
        if (!q)
            tap_log("cannot allocate the record queue (NCCLTAP_RING_SIZE=%u): calls are counted as dropped",
                    tap_config.ring_size);
        atomic_store(&tap_ring, q);
    }
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &attr);
    pthread_cond_init(&checkpoint_cond, &attr);
    pthread_condattr_destroy(&attr);
    /* The application's signals are for its own threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    running = pthread_create(&reducer_thread, NULL, reducer_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!running)
        tap_log("cannot start the reducer thread: calls are counted, nothing is timed or written");
    else {
        atexit(tap_runtime_stop);
        say_if_one_cpu();
    }
    atomic_store_explicit(&started, running, memory_order_release);
    pthread_mutex_unlock(&start_lock);
}

void tap_runtime_checkpoint(void)
{
    if (!atomic_load_explicit(&started, memory_order_acquire) || atomic_load(&tap_closed))
        return;
    uint64_t now = tap_monotonic_ns();
    uint64_t budget = CHECKPOINT_FREE_NS + (now - tap_process.start_mono_ns) / CHECKPOINT_SHARE;
    if (atomic_load(&checkpoint_waited_ns) > budget) {
        TAP_LOG_ONCE(checkpoint_budget_said, "communicators end too often to write %s at each last one: "
                     "from now on it is written every NCCLTAP_INTERVAL_MS and at exit (a process that ends "
                     "with _exit may lose its last interval)", tap_rank_file_path());
        return;
    }
    uint64_t wait_ns = (uint64_t)tap_config.exit_wait_ms * 1000000ull / 4;
    struct timespec until = monotonic_in(wait_ns);
    pthread_mutex_lock(&wake_lock);
    if (!stopping) {
        uint64_t asked = ++checkpoints_asked;
        checkpoint_deadline_ns = now + wait_ns;
        pthread_cond_signal(&wake);
        while (!stopping && checkpoints_written < asked &&
               pthread_cond_timedwait(&checkpoint_cond, &wake_lock, &until) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&wake_lock);
    atomic_fetch_add(&checkpoint_waited_ns, tap_monotonic_ns() - now);
}

void tap_runtime_stop(void)
{
    if (atomic_flag_test_and_set(&stopped))
        return;
    pthread_mutex_lock(&start_lock);
    bool was_running = running;
    pthread_mutex_unlock(&start_lock);
    if (!was_running)
        return;
    /* No call is recorded from here on, so the reducer's last passes end
     * however fast other threads still call NCCL. */
    atomic_store(&tap_closed, true);
    /* The whole exit fits in NCCLTAP_EXIT_WAIT_MS: three quarters to
     * collect, the rest to write the files. */
    uint64_t wait_ns = (uint64_t)tap_config.exit_wait_ms * 1000000ull;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    pthread_mutex_lock(&wake_lock);
    collect_deadline_ns = tap_monotonic_ns() + wait_ns / 4 * 3;
    stopping = true;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&wake_lock);
    /* Never hang the application's exit: past the wait, leave without the
     * reducer (the last interval's file stays). */
    uint64_t ns = (uint64_t)until.tv_nsec + wait_ns;
    until.tv_sec += (time_t)(ns / 1000000000ull);
    until.tv_nsec = (long)(ns % 1000000000ull);
    if (pthread_timedjoin_np(reducer_thread, NULL, &until) != 0)
        tap_log("the reducer did not finish within NCCLTAP_EXIT_WAIT_MS=%u: %s may be missing the last interval",
                tap_config.exit_wait_ms, tap_rank_file_path());
}

/* fork(): only the forking thread goes on in the child; the reducer does
 * not. The child starts afresh, with its own output file, when it makes its
 * own communicators. The locks the child may take are taken before fork
 * and released after it, in the parent and in the child alike, so the
 * child gets each one free and the state it guards whole (re-initializing
 * a mutex another thread held is undefined). They never nest and guard
 * only nccltap's own data. Not taken: the event pools' locks, held around
 * CUDA calls whose driver may hold its own locks across fork (a lock-order
 * inversion; TSan found it with the simulator), and never taken in a child
 * of a process that used CUDA (timing is off there: tap_gpu_after_fork);
 * the NCCL resolver's, held around dlopen on the first call only. */
void tap_runtime_say_after_exit(void)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    uint64_t late = atomic_load(&tap_totals.after_exit), written = atomic_load(&after_exit_written);
    if (written == UINT64_MAX || late <= written || atomic_flag_test_and_set(&said))
        return;
    tap_log("%llu NCCL calls came after nccltap wrote %s at exit (from an exit handler the program registered "
            "before its first communicator, or a global object's destructor): they are in no file",
            (unsigned long long)(late - written), tap_rank_file_path());
}

void tap_runtime_fork_lock(bool lock)
{
    (lock ? pthread_mutex_lock : pthread_mutex_unlock)(&start_lock);
    (lock ? pthread_mutex_lock : pthread_mutex_unlock)(&wake_lock);
    tap_comm_registry_fork_lock(lock);
    tap_parked_fork_lock(lock);
}

void tap_runtime_after_fork_child(void)
{
    running = false;
    atomic_store(&started, false);
    stopping = false;
    atomic_flag_clear(&stopped);
    atomic_store(&after_exit_written, UINT64_MAX);
    checkpoints_asked = checkpoints_written = 0;
    atomic_store(&checkpoint_waited_ns, 0);
    atomic_flag_clear(&checkpoint_budget_said);
    atomic_store(&tap_closed, false);
    struct mpmc_queue *q = atomic_load(&tap_ring);
    if (q)
        mpmc_clear(q);
    memset(&tap_totals, 0, sizeof tap_totals);
    memset(tap_entry_counts, 0, sizeof tap_entry_counts);
    tap_process_after_fork();
    tap_comm_registry_reset();
    tap_nccl_env_reset();
    tap_stats_reset();
    tap_graph_reset();
    tap_site_stats_reset();
    tap_callsites_after_fork();
    tap_reducer_reset();
    tap_gpu_after_fork();
    tap_ops_log_reset();
    tap_rank_file_reset();
    tap_step_marks_reset();
    tap_steps_online_reset();
    tap_ops_file_reset();
    tap_ops_bound_reset();
    tap_hang_reset();
    tap_prom_reset();
}
