#ifndef NCCLTAP_MONOTONIC_H
#define NCCLTAP_MONOTONIC_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: LTTng's clock, so every time nccltap reports lands
 * on the same timeline as the kernel's events. */
static inline uint64_t tap_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
