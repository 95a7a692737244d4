/* Includes the result's header (allowed) and calls the analysis (caught). */
#include "../analyze/result.h"
int page(const struct result *r) { return result_count(r); }
