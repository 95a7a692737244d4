/* Bringing the process up, once, from whichever path comes first: the
 * shim's constructor, or an NCCL call made before it ran (from another
 * library's constructor). Reads the configuration, sets who this process
 * is, and registers the fork handlers, which call down into the runtime. */
#ifndef NCCLTAP_BRING_UP_H
#define NCCLTAP_BRING_UP_H

/* Thread-safe (pthread_once); cheap after the first call. */
void tap_bring_up(void);

/* Brings the process up, then, with NCCLTAP_OS=switch, asks NCCL to name
 * its threads (NCCL_SET_THREAD_NAME=1, unless the environment sets it):
 * without it NCCL's proxy and progress threads bear the program's name
 * (NCCL 2.28 on 2 H200s), and the context-switch records cannot find them
 * by name. setenv is not safe beside other threads' getenv: called from
 * the shim's constructor only, before the program runs. */
void tap_name_nccl_threads(void);

#endif
