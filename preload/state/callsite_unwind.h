/* Deeper call sites: the stack above an NCCL call, through libunwind, and
 * the libraries NCCLTAP_CALLSITE_SKIP names. callsite_unwind.c */
#ifndef NCCLTAP_CALLSITE_UNWIND_H
#define NCCLTAP_CALLSITE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

/* Loads libunwind (once). False, said once, when nccltap was built without
 * it or it cannot be loaded: call sites then have the wrapper's return
 * address only. */
bool tap_unwind_ready(void);

/* Fills out[0..depth) with the return addresses from `ra` (the wrapper's)
 * outward, nccltap's own frames and those in skipped libraries left out;
 * 0 past the end of the stack. Needs tap_unwind_ready(). */
void tap_unwind_site(uintptr_t ra, uintptr_t *out, unsigned depth);

/* True when NCCLTAP_CALLSITE_SKIP names at least one library. */
bool tap_skip_wanted(void);

/* True when `pc` lies in a library NCCLTAP_CALLSITE_SKIP names. */
bool tap_skip_pc(uintptr_t pc);

#endif
