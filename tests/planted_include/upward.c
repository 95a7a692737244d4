/* Compiled as the base floor (preload/base) is: it includes a header of the
 * entry floor, above it. layout.planted_upward_include builds this and
 * expects the compiler to refuse: the floors' include directories are the
 * rule (preload/CMakeLists.txt). */
#include "entry/intercept.h"

int planted_upward(void);
int planted_upward(void) { return 0; }
