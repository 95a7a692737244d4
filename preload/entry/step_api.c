/* nccltap_step(): the program says a training step begins
 * (state/step_marks.h). The one function of nccltap's own that the shim
 * exports besides the NCCL API (exports.map); declared for programs in
 * nccltap.h. A program that runs without nccltap finds no such symbol:
 * look it up (dlsym(RTLD_DEFAULT, "nccltap_step"), or ctypes'
 * getattr(ctypes.CDLL(None), "nccltap_step", None)) rather than link it. */
#include "nccltap.h"

#include "state/step_marks.h"
#include "writers/tracing.h"

__attribute__((visibility("default"))) void nccltap_step(void)
{
    uint64_t now_ns;
    uint64_t n = tap_step_mark(&now_ns);
    TAP_TRACE(step, n, now_ns);
}
