/* Includes the result's header and only reads it: allowed. */
#include "../analyze/result.h"
int table(const struct result *r) { return r->n + 1; }
