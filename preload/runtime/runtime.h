/* The reducer thread's life: started with the first communicator, stopped
 * at exit within NCCLTAP_EXIT_WAIT_MS, and made afresh in a forked child.
 * Each interval it runs a reducer pass and hands the writers a snapshot.
 * Called by the entry floor (entry/shim.c: load, exit, fork; the hooks:
 * the first communicator), which brings the process up first. */
#ifndef NCCLTAP_RUNTIME_H
#define NCCLTAP_RUNTIME_H

#include <stdbool.h>

/* Creates the queue and starts the reducer thread, once (cold path: the
 * first communicator). Safe to call again, from any thread. */
void tap_runtime_start(void);

/* At exit: lets the reducer finish within NCCLTAP_EXIT_WAIT_MS and write the
 * final output. Idempotent. */
void tap_runtime_stop(void);

/* At unload (entry/shim.c's destructor, after every exit handler and
 * global destructor has run): says how many calls came after the final
 * files were written. Exit handlers the program registered before its
 * first communicator run after nccltap's (registered then, while CUDA is
 * up), as do its global objects' destructors; their calls are counted
 * (after_exit) but are in no file. Idempotent. */
void tap_runtime_say_after_exit(void);

/* The process's last communicator has ended (entry/comm_hooks.c: a
 * finalize, destroy or abort that left none alive). What the process did
 * is complete now, and it may end with _exit, which runs no exit handler
 * (Python multiprocessing's forked workers do): the reducer drains the
 * queue and the ops on the GPU, writes the rank file (final) and flushes
 * the per-op file and log, and the caller waits for it at most
 * NCCLTAP_EXIT_WAIT_MS / 4. Waiting is budgeted (CHECKPOINT_* in
 * runtime.c): once such waits have taken more than about 3% of the
 * process's life, communicators made and ended one after another are
 * written at each interval and at exit only, said once. Application
 * thread, cold path; returns at once when the reducer does not run. */
void tap_runtime_checkpoint(void);

/* Around fork(): takes (lock) or releases the locks a child may need, the
 * runtime's and those of the floors below it, so that the child gets each
 * one free and the state it guards whole. */
void tap_runtime_fork_lock(bool lock);

/* In a forked child, after tap_runtime_fork_lock(false): no reducer thread
 * runs; every floor below starts afresh, as a new process would. */
void tap_runtime_after_fork_child(void);

#endif
