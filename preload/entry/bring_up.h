/* Bringing the process up, once, from whichever path comes first: the
 * shim's constructor, or an NCCL call made before it ran (from another
 * library's constructor). Reads the configuration, sets who this process
 * is, and registers the fork handlers, which call down into the runtime. */
#ifndef NCCLTAP_BRING_UP_H
#define NCCLTAP_BRING_UP_H

/* Thread-safe (pthread_once); cheap after the first call. */
void tap_bring_up(void);

#endif
