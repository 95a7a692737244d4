/* --bytes: sizes with K/M/G suffixes, ranges and lists. */
#ifndef NCCLTAP_BENCH_SIZES_H
#define NCCLTAP_BENCH_SIZES_H

#include <stddef.h>

/* "8", "1K", "64M", "1G" (powers of 1024). Returns 0, or -1 when `s` is not
 * a positive size. */
int size_parse(const char *s, size_t *out);

/* "MIN:MAX" (MIN, MIN*factor, ... up to MAX) or a comma list "8,1K,1M".
 * Returns the number of sizes, stored in a malloc'ed *out; or -1 with the
 * reason in `why`. */
int sizes_expand(const char *spec, unsigned long factor, size_t **out,
                 char *why, size_t why_len);

#endif
