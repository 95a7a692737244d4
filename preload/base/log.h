/* Messages from the shim to stderr, always prefixed "nccltap: ". */
#ifndef NCCLTAP_LOG_H
#define NCCLTAP_LOG_H

#include <stdatomic.h>

void tap_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Logs once per call site: `flag` is a static atomic_flag at that site. */
#define TAP_LOG_ONCE(flag, ...)                          \
    do {                                                 \
        if (!atomic_flag_test_and_set(&(flag)))          \
            tap_log(__VA_ARGS__);                        \
    } while (0)

#endif
