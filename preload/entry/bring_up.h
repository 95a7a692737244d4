/* Bringing the process up, once, from whichever path comes first: the
 * shim's constructor, or an NCCL call made before it ran (from another
 * library's constructor). Reads the configuration, sets who this process
 * is, and registers the fork handlers, which call down into the runtime. */
#ifndef NCCLTAP_BRING_UP_H
#define NCCLTAP_BRING_UP_H

/* Thread-safe (pthread_once); cheap after the first call. */
void tap_bring_up(void);

/* The shim's constructor: brings the process up, then sets what the
 * environment must carry, while the process has one thread (setenv is
 * not safe beside other threads' getenv; a thread already there: nothing
 * is set, said where it matters): NCCLTAP_IMAGE for an image that exec()
 * starts next (writers/output.h), and, with NCCLTAP_OS=switch,
 * NCCL_SET_THREAD_NAME=1 unless the environment sets it: without it
 * NCCL's proxy and progress threads bear the program's name (NCCL 2.28 on
 * 2 H200s), and the context-switch records cannot find them by name. */
void tap_at_load(void);

#endif
