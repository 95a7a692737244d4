/* What NCCLTAP_OS=switch costs a context switch (BENCHMARKS.md, issue 22):
 * two threads pass a byte back and forth through pipes, so that each round
 * trip is two switches of each thread, with and without the event the shim
 * opens on each (base/switch_event.h, the very attributes and ring size
 * reducer/os_switch.c uses), rounds alternating; the rings are emptied
 * between rounds as the reducer does. Prints the median ns per round trip
 * of each, and the difference per switch.
 * Usage: os_switch_cost [ROUND_TRIPS [ROUNDS]] */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/monotonic.h"
#include "base/switch_event.h"

static int ping[2], pong[2];
static long trips;

static volatile pid_t echo_tid;

static void *echo(void *arg)
{
    (void)arg;
    echo_tid = (pid_t)syscall(SYS_gettid);
    char c;
    while (read(ping[0], &c, 1) == 1 && c)
        if (write(pong[1], &c, 1) != 1)
            break;
    return NULL;
}

/* The rings of the round with events, NULL without: emptied every 64
 * round trips (8 KiB of a 64 KiB ring), as the reducer empties them, and counted. */
static struct perf_event_mmap_page *rings[2];
static uint64_t bytes;

static void drain(void)
{
    for (int i = 0; i < 2 && rings[i]; i++) {
        uint64_t head = __atomic_load_n(&rings[i]->data_head, __ATOMIC_ACQUIRE);
        bytes += head - rings[i]->data_tail;
        __atomic_store_n(&rings[i]->data_tail, head, __ATOMIC_RELEASE);
    }
}

static double round_trip_ns(void)
{
    char c = 1;
    uint64_t t0 = tap_monotonic_ns();
    for (long i = 0; i < trips; i++) {
        if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
            exit(1);
        if ((i & 63) == 63)
            drain();
    }
    return (double)(tap_monotonic_ns() - t0) / (double)trips;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    trips = argc > 1 ? atol(argv[1]) : 100000;
    int rounds = argc > 2 ? atoi(argv[2]) : 8;
    if (pipe(ping) || pipe(pong))
        return 1;
    pthread_t t;
    pthread_create(&t, NULL, echo, NULL);
    while (!echo_tid)
        ;
    long page = sysconf(_SC_PAGESIZE);
    pid_t tids[2] = { (pid_t)syscall(SYS_gettid), echo_tid };
    double *on = calloc((size_t)rounds, sizeof *on), *off = calloc((size_t)rounds, sizeof *off);
    for (int r = 0; r < rounds; r++) {
        off[r] = round_trip_ns();
        int fd[2];
        for (int i = 0; i < 2; i++) {
            fd[i] = tap_switch_event_open(tids[i]);
            if (fd[i] < 0) {
                perror("perf_event_open");
                return 77;
            }
            rings[i] = mmap(NULL, (size_t)(1 + TAP_SWITCH_RING_PAGES) * (size_t)page, PROT_READ | PROT_WRITE,
                            MAP_SHARED, fd[i], 0);
        }
        on[r] = round_trip_ns();
        drain();
        for (int i = 0; i < 2; i++) {
            munmap(rings[i], (size_t)(1 + TAP_SWITCH_RING_PAGES) * (size_t)page);
            rings[i] = NULL;
            close(fd[i]);
        }
    }
    char stop = 0;
    if (write(ping[1], &stop, 1) != 1)
        return 1;
    pthread_join(t, NULL);
    qsort(on, (size_t)rounds, sizeof *on, cmp);
    qsort(off, (size_t)rounds, sizeof *off, cmp);
    double m_on = on[rounds / 2], m_off = off[rounds / 2];
    /* A round trip: each thread switched out and in once (2 records each,
     * 32 bytes a record), when both wait in read(). */
    printf("round trip: %.0f ns without, %.0f ns with the events (medians of %d rounds of %ld)\n", m_off, m_on,
           rounds, trips);
    double records = (double)bytes / 32 / (double)rounds / (double)trips;
    printf("%.2f switch records a round trip; per record: %.1f ns\n", records, (m_on - m_off) / records);
    free(on);
    free(off);
    return 0;
}
