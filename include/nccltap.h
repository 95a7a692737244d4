/* nccltap's own API for programs run under it (the shim, libnccltap.so,
 * preloaded). Everything else nccltap does needs no change to the program.
 * Look the function up at run time, so that the program also runs without
 * nccltap:
 *
 *     void (*step)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "nccltap_step");
 *     ...
 *     if (step) step();   // each training step's start
 *
 * or from Python: step = getattr(ctypes.CDLL(None), "nccltap_step", None). */
#ifndef NCCLTAP_H
#define NCCLTAP_H

#ifdef __cplusplus
extern "C" {
#endif

/* A training step begins now: `nccltap report` splits each communicator's
 * collectives into steps at these times (its Steps section) rather than
 * finding them from the calls. Any thread; it never blocks: one atomic
 * add and one store. */
void nccltap_step(void);

#ifdef __cplusplus
}
#endif

#endif
