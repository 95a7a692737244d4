/* nccltap_step(): the program says a training step begins
 * (state/step_marks.h). The one function of nccltap's own that the shim
 * exports besides the NCCL API (exports.map); declared for programs in
 * nccltap.h. A program that runs without nccltap finds no such symbol:
 * look it up (dlsym(RTLD_DEFAULT, "nccltap_step"), or ctypes'
 * getattr(ctypes.CDLL(None), "nccltap_step", None)) rather than link it. */
#include "nccltap.h"

#include "state/step_marks.h"

__attribute__((visibility("default"))) void nccltap_step(void)
{
    tap_step_mark();
}
