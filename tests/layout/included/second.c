/* Includes first.h, which includes second.h. */
#include "first.h"

int second(void) { return 2; }
