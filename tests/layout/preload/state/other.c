/* Reaches a lower floor through "../" rather than by its folder. */
#include "../base/ground.h"

int other_count(void);
int other_count(void) { return ground_count(); }
