/* Minimal helpers to write JSON with stdio: strings escaped, numbers in a
 * form every parser reads (no NaN or infinity). */
#ifndef NCCLTAP_JSON_WRITER_H
#define NCCLTAP_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* `s` as a JSON string: '"', '\\' and control characters escaped, bytes
 * that are not UTF-8 written as \ufffd (U+FFFD), so any bytes an
 * application names things with give valid JSON. */
void json_string(FILE *f, const char *s);
/* The same JSON string into dst (cap bytes), NUL-terminated, for writers
 * that build a line in memory. Returns its length, or 0 when it does not
 * fit (dst is then not a string to use). */
size_t json_string_buf(char *dst, size_t cap, const char *s);
void json_number(FILE *f, double v);
/* v when `known`, else null. */
void json_number_or_null(FILE *f, double v, bool known);

#endif
