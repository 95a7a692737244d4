#include "base/utf8.h"

#include <string.h>

size_t tap_utf8_char_len(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    if (n == 0)
        return 0;
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        else if (c == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        else if (c == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else {
        return 0; /* continuation byte, 0xc0, 0xc1, 0xf5..0xff */
    }
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return len;
}

void tap_utf8_copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src), used = 0;
    while (used < n) {
        size_t len = tap_utf8_char_len(src + used, n - used);
        if (len == 0)
            len = 1;
        if (used + len > cap - 1)
            break;
        used += len;
    }
    memcpy(dst, src, used);
    dst[used] = '\0';
}
