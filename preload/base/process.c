#include "base/process.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "base/monotonic.h"

struct tap_process tap_process;

void tap_process_init(void)
{
    gethostname(tap_process.host, sizeof tap_process.host - 1);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    tap_process.start_unix_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    tap_process_after_fork();
}

void tap_process_after_fork(void)
{
    tap_process.pid = getpid();
    tap_process.start_mono_ns = tap_monotonic_ns();
}

unsigned tap_process_threads(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[128];
    unsigned n = 0;
    while (f && fgets(line, sizeof line, f) && sscanf(line, "Threads: %u", &n) != 1)
        ;
    if (f)
        fclose(f);
    return n;
}
