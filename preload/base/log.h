/* Messages from the shim to stderr, always prefixed "nccltap: ". */
#ifndef NCCLTAP_LOG_H
#define NCCLTAP_LOG_H

#include <stdatomic.h>

void tap_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* At load (the loading thread): notes which file stderr is. A program may
 * close stderr and open a file, a pipe or a socket of its own, which then
 * gets descriptor 2: messages go to descriptor 2 only while it is that
 * file, or one a program made its log (a file opened to append, as
 * freopen(..., "a", stderr) does, or a terminal); otherwise they are
 * dropped, not written into the program's data. Without this call (the
 * CLI), to descriptor 2 as it is. */
void tap_log_at_load(void);

/* Logs once per call site: `flag` is a static atomic_flag at that site. */
#define TAP_LOG_ONCE(flag, ...)                          \
    do {                                                 \
        if (!atomic_flag_test_and_set(&(flag)))          \
            tap_log(__VA_ARGS__);                        \
    } while (0)

#endif
