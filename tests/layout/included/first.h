/* Includes second.h, whose .c includes this: a circle made of includes alone. */
#include "second.h"
int first(void);
