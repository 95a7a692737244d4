/* The analysis's result type, which a renderer may include. */
struct result { int n; };
int result_count(const struct result *r);
