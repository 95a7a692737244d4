/* The driver's lock, and the thread that plays the GPU.
 *
 * A real GPU runs queued work whatever the host threads do. Here a queued
 * collective begins when every rank has arrived, and a rank's arrival is
 * known only once the work ahead of it on its stream is resolved. If that
 * were done only when the application queries or synchronizes, a rank whose
 * host thread sits elsewhere (in a barrier, in sleep) would never arrive,
 * and its peers would wait forever. So a thread resolves every stream that
 * has queued work, polling (with backoff) while some rank is missing: the
 * missing rank may be in another process, which no condition variable
 * reaches. It runs only while some stream has queued work. */
#include <pthread.h>
#include <signal.h>

#include "cuda_internal.h"
#include "sim_time.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t resolved;     /* some queued work resolved */
static pthread_cond_t wake;         /* wakes the progress thread */
static pthread_once_t conds_once = PTHREAD_ONCE_INIT;
static struct CUstream_st *pending; /* streams with queued work */
static int thread_running;

/* Polling period of the progress thread while a rank is missing, and the
 * longest that a waiting synchronize call goes without looking itself. */
#define POLL_FIRST_NS 20000ull
#define POLL_MAX_NS 250000ull

#define SPIN_POLL_NS 5000000ull

static void fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

static void fork_child(void)
{
    /* The child has no progress thread: start one again when needed. */
    thread_running = 0;
    pthread_mutex_unlock(&lock);
}

static void init_conds(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&resolved, &a);
    pthread_cond_init(&wake, &a);
    pthread_condattr_destroy(&a);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

void sim_lock(void)
{
    pthread_once(&conds_once, init_conds);
    pthread_mutex_lock(&lock);
}

void sim_unlock(void)
{
    pthread_mutex_unlock(&lock);
}

void sim_progress_notify(void)
{
    pthread_cond_broadcast(&resolved);
}

/* One pass over the pending streams; returns how many items resolved. */
static int progress_pass(void)
{
    int n = 0;
    struct CUstream_st **link = &pending;
    while (*link) {
        struct CUstream_st *s = *link;
        n += sim_queue_resolve(s);
        if (s->head) {
            link = &s->pending_next;
            continue;
        }
        *link = s->pending_next;
        s->pending = 0;
        s->pending_next = NULL;
        if (s->destroyed)
            sim_stream_free(s);
    }
    return n;
}

void sim_progress_help(void)
{
    /* Only resolves: the list itself is the progress thread's to edit. */
    for (struct CUstream_st *s = pending; s; s = s->pending_next)
        sim_queue_resolve(s);
}

static void *progress_main(void *arg)
{
    (void)arg;
    uint64_t step = POLL_FIRST_NS;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!pending)
            pthread_cond_wait(&wake, &lock);
        step = progress_pass() ? POLL_FIRST_NS : (step * 2 > POLL_MAX_NS ? POLL_MAX_NS : step * 2);
        /* NCCLSIM_SPIN: the host thread resolves its own streams as it
         * spins; waking at every op would preempt it, as a real GPU's
         * work never does. Look rarely, for a host thread gone elsewhere. */
        if (sim_spin())
            step = SPIN_POLL_NS;
        if (pending) {
            struct timespec until = sim_timespec_ns(sim_now_ns() + step);
            pthread_cond_timedwait(&wake, &lock, &until);
        }
    }
    return NULL;
}

static void ensure_thread(void)
{
    if (thread_running)
        return;
    /* Application signals are for the application's threads. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, progress_main, NULL) == 0)
        thread_running = 1;
    /* If it cannot start, queries and synchronize calls still resolve
     * work themselves; only a rank with an idle host thread stalls. */
    pthread_attr_destroy(&a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void sim_progress_watch(struct CUstream_st *s)
{
    if (!s->pending) {
        s->pending = 1;
        s->pending_next = pending;
        pending = s;
    }
    ensure_thread();
    if (!sim_spin())
        pthread_cond_signal(&wake);
}

void sim_progress_wait(void)
{
    ensure_thread();
    if (sim_spin()) {
        /* NCCLSIM_SPIN: let go of the lock and spin a while, never sleep. */
        pthread_mutex_unlock(&lock);
        uint64_t until = sim_now_ns() + POLL_FIRST_NS;
        while (sim_now_ns() < until)
            ;
        pthread_mutex_lock(&lock);
        return;
    }
    struct timespec until = sim_timespec_ns(sim_now_ns() + POLL_MAX_NS);
    pthread_cond_timedwait(&resolved, &lock, &until);
}
