#include "sim_time.h"
#include "sim_env.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int64_t realtime_offset;
static pthread_once_t realtime_once = PTHREAD_ONCE_INIT;

static void measure_realtime_offset(void)
{
    /* The reading with the shortest bracket of 64: one read while the
     * process was descheduled (a loaded machine) would put every arrival
     * of this rank off by that much (66 us seen), which the cross-rank
     * tests would take for a clock offset. */
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 64; i++) {
        struct timespec r;
        uint64_t before = sim_now_ns();
        clock_gettime(CLOCK_REALTIME, &r);
        uint64_t after = sim_now_ns();
        if (after - before < best) {
            best = after - before;
            realtime_offset = (int64_t)((uint64_t)r.tv_sec * 1000000000ull + (uint64_t)r.tv_nsec) -
                              (int64_t)(before + (after - before) / 2);
        }
    }
}

int64_t sim_realtime_offset_ns(void)
{
    pthread_once(&realtime_once, measure_realtime_offset);
    return realtime_offset;
}

uint64_t sim_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct timespec sim_timespec_ns(uint64_t t)
{
    struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ull),
                           .tv_nsec = (long)(t % 1000000000ull) };
    return ts;
}

/* NCCLSIM_SPIN=1: host waits busy-wait, as CUDA's spin-wait synchronization
 * (cudaDeviceScheduleSpin, the default with fewer busy threads than cores)
 * does: the thread never sleeps, so all its time off the CPU is preemption. */
static bool spin;
static pthread_once_t spin_once = PTHREAD_ONCE_INIT;

static void read_spin(void)
{
    spin = sim_knob_long(SIM_SPIN) == 1;
}

bool sim_spin(void)
{
    pthread_once(&spin_once, read_spin);
    return spin;
}

void sim_sleep_until_ns(uint64_t t)
{
    if (sim_spin()) {
        while (sim_now_ns() < t)
            ;
        return;
    }
    struct timespec ts = sim_timespec_ns(t);
    /* Absolute sleep: a signal that interrupts it resumes to the same end. */
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* First and largest sleep of a backoff: short enough that a waiting rank
 * notices its peers within a fraction of a millisecond, long enough that a
 * rank waiting for minutes on a hung peer costs no measurable CPU. */
#define BACKOFF_FIRST_NS 20000ull
#define BACKOFF_MAX_NS 1000000ull

void sim_backoff_init(struct sim_backoff *b, double timeout_s)
{
    b->deadline_ns = timeout_s > 0 ? sim_now_ns() + (uint64_t)(timeout_s * 1e9) : 0;
    b->step_ns = BACKOFF_FIRST_NS;
}

int sim_backoff_sleep(struct sim_backoff *b)
{
    uint64_t now = sim_now_ns();
    if (b->deadline_ns && now >= b->deadline_ns)
        return 0;
    uint64_t until = now + b->step_ns;
    if (b->deadline_ns && until > b->deadline_ns)
        until = b->deadline_ns;
    sim_sleep_until_ns(until);
    if (b->step_ns < BACKOFF_MAX_NS)
        b->step_ns *= 2;
    return 1;
}
