/* Load and unload of libnccltap.so. Loading does no more than bring the
 * process up (configuration, identity, fork handlers) and set what the
 * environment carries (bring_up.h): a program that never calls NCCL pays
 * nothing and sees only NCCLTAP_IMAGE and NCCL_SET_THREAD_NAME. The
 * runtime starts with the first communicator. A passive copy (another
 * nccltap is ahead of it in the process, nccl/shim_copy.h) does nothing at
 * either. */
#include "entry/bring_up.h"
#include "entry/intercept.h"
#include "entry/unseen.h"
#include "nccl/shim_copy.h"
#include "runtime/runtime.h"

__attribute__((constructor)) static void tap_load(void)
{
    if (tap_shim_passive())
        return;
    tap_at_load();
    tap_intercept_at_load();
}

/* At exit, after atexit(tap_runtime_stop), which ran while CUDA was still
 * up: nothing left to do but where that registration failed. The
 * library is never unloaded before exit (linked -z nodelete). */
__attribute__((destructor)) static void tap_unload(void)
{
    if (tap_shim_passive())
        return;
    tap_runtime_stop();
    tap_runtime_say_after_exit();
    tap_say_unseen_nccl();
}
