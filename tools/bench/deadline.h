/* A bound on the waits for the other ranks that no rendezvous can bound
 * itself: from handing the ids out to the last thread's ncclCommInitRank
 * returning, which NCCL may never do when a rank never comes (or came
 * with another run's ids). Past it the rank says what it waited for and
 * ends with status 1, as bench_die does: --timeout bounds every wait.
 * Armed and disarmed by the rank's threads; the expiry runs in a signal
 * handler (SIGALRM), in whichever thread the kernel picks. */
#ifndef NCCLTAP_BENCH_DEADLINE_H
#define NCCLTAP_BENCH_DEADLINE_H

/* Starts the clock: `seconds` from now, unless `parties` calls of
 * deadline_party_done came first. `what` says what the rank waits for,
 * after "timed out after N s ". Main thread, before the waiting starts. */
void deadline_arm(int seconds, int parties, const char *what);

/* One party (a thread whose communicator is made) is past the wait; the
 * last one stops the clock. Any thread. */
void deadline_party_done(void);

#endif
