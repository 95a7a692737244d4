#include "entry/thread.h"

#include "state/callers.h"

#include <sys/syscall.h>
#include <unistd.h>

__thread struct tap_thread_fast tap_fast __attribute__((tls_model("initial-exec")));

uint32_t tap_thread_id_slow(void)
{
    tap_fast.tid = (uint32_t)syscall(SYS_gettid);
    tap_callers_add(tap_fast.tid); /* once per thread: NCCLTAP_OS follows it */
    return tap_fast.tid;
}

void tap_thread_after_fork(void)
{
    tap_fast.busy = 0;
    tap_fast.group_depth = 0;
    tap_fast.tid = 0;
}
