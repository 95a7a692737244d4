#include "base/ground.h"

int ground_count(void) { return 1; }
