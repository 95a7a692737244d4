/* UTF-8 for names that come from the application (communicator names,
 * host names, symbols): the outputs must stay valid JSON whatever bytes
 * they hold. Pure functions, no state: the JSON writer's fuzzer calls
 * them directly. */
#ifndef NCCLTAP_UTF8_H
#define NCCLTAP_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the well-formed UTF-8 character at `s`, of which
 * `n` bytes are available; 0 when the bytes there are not one (a stray
 * continuation byte, a truncated or overlong sequence, a surrogate, a code
 * point above U+10FFFF). */
size_t tap_utf8_char_len(const char *s, size_t n);

/* Copies `src` into `dst` (`cap` bytes, at least 1), NUL-terminated,
 * truncated to whole characters: never ends inside a multi-byte character
 * (a cut name stays readable). Bytes that are not UTF-8 are copied as
 * they are, one byte each; the JSON writer replaces them. */
void tap_utf8_copy(char *dst, size_t cap, const char *src);

#endif
