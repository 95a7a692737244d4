/* This process, as every output names it: host, pid and when the shim
 * started here. Set once at bring-up (tap_process_init), and again in a
 * forked child (tap_process_after_fork); read by any thread afterwards. */
#ifndef NCCLTAP_PROCESS_H
#define NCCLTAP_PROCESS_H

#include <stdint.h>

struct tap_process {
    char host[256];
    int pid;
    uint64_t start_mono_ns; /* when the shim was loaded (or the process forked) */
    uint64_t start_unix_ns;
};
extern struct tap_process tap_process;

/* Fills tap_process. Called once, by bring-up. */
void tap_process_init(void);

/* In a forked child: its own pid and start. */
void tap_process_after_fork(void);

/* The process's threads now (/proc/self/status), 0 when unknown. */
unsigned tap_process_threads(void);

#endif
