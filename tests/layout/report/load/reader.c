/* A loader that calls a renderer (caught). */
int table(const void *r);
int page(const void *r);
int reader(void) { return page(0); }
