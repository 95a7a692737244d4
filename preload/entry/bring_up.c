#include "entry/bring_up.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/config.h"
#include "base/log.h"
#include "base/process.h"
#include "entry/thread.h"
#include "runtime/runtime.h"
#include "writers/output.h"
#include "writers/prom_stale.h"

/* fork(): the runtime takes the locks a child may need before, and
 * releases them after, in parent and child (runtime.h says why); the
 * child then starts afresh, and its one thread forgets its wrapper state. */
static void before_fork(void) { tap_runtime_fork_lock(true); }

static void after_fork_parent(void) { tap_runtime_fork_lock(false); }

static void after_fork_child(void)
{
    tap_runtime_fork_lock(false);
    tap_runtime_after_fork_child();
    tap_thread_after_fork();
}

static void bring_up(void)
{
    tap_config_ensure();
    tap_process_init();
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

void tap_at_load(void)
{
    tap_log_at_load();
    tap_bring_up();
    unsigned threads = tap_process_threads();
    if (threads != 1) {
        tap_output_note_image();
        tap_prom_remove_earlier_image();
        if (tap_config.os_switch && !getenv("NCCL_SET_THREAD_NAME"))
            tap_log("NCCLTAP_OS=switch: the process had %u threads when nccltap was loaded, so nccltap does not "
                    "set NCCL_SET_THREAD_NAME=1 (setenv is not safe beside other threads): set it in the job's "
                    "environment for NCCL's threads to be followed", threads);
        return;
    }
    tap_output_pass_image();
    tap_prom_remove_earlier_image();
    if (tap_config.os_switch)
        setenv("NCCL_SET_THREAD_NAME", "1", 0);
}

void tap_bring_up(void)
{
    static pthread_once_t brought_up = PTHREAD_ONCE_INIT;
    pthread_once(&brought_up, bring_up);
}
