#include "result.h"
int result_count(const struct result *r) { return r->n; }
