/* Keeps a writer's function in a function pointer, without including its
 * header or calling it: an upward use all the same. Includes its own header
 * without the floor's folder. */
#include "low.h"

void high_flush(void);
static void (*on_flush)(void) = high_flush;

void low_run(void) { on_flush = on_flush ? on_flush : high_flush; }
