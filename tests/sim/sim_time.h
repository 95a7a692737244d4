/* Host clock and sleeping, shared by the simulated driver and NCCL.
 *
 * Every simulated time is CLOCK_MONOTONIC in nanoseconds: the GPU clock of
 * a stream is expressed on the host's clock, so that event times can be
 * compared with "now" and slept until, and so that LTTng (which also uses
 * CLOCK_MONOTONIC) sees simulated GPU work on the host's timeline. */
#ifndef NCCLSIM_TIME_H
#define NCCLSIM_TIME_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

uint64_t sim_now_ns(void);

/* CLOCK_REALTIME minus CLOCK_MONOTONIC in this process, measured once.
 * Ranks meet on CLOCK_REALTIME: processes in different time namespaces
 * (simulated hosts) have different monotonic clocks but the same real
 * time, so times they exchange are converted with it. */
int64_t sim_realtime_offset_ns(void);

/* Sleeps until CLOCK_MONOTONIC reaches t (returns at once if it has). */
/* NCCLSIM_SPIN=1: host waits busy-wait instead of sleeping. */
bool sim_spin(void);

void sim_sleep_until_ns(uint64_t t);

/* CLOCK_MONOTONIC time t as a timespec, for pthread_cond_timedwait on a
 * condition variable set to that clock. */
struct timespec sim_timespec_ns(uint64_t t);

/* Polling with a growing sleep and a deadline, for waits on another
 * process's progress in shared memory, where no wake-up can be sent. */
struct sim_backoff {
    uint64_t deadline_ns;   /* 0: wait forever */
    uint64_t step_ns;
};

void sim_backoff_init(struct sim_backoff *b, double timeout_s);

/* Sleeps one step. Returns 0 once the deadline has passed. */
int sim_backoff_sleep(struct sim_backoff *b);

#endif
