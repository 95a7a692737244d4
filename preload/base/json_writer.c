#include "base/json_writer.h"

#include <math.h>
#include <string.h>

#include "base/utf8.h"

/* The JSON text of the character at s (n bytes left) into out, the one
 * rule both writers share; *used is how many bytes of s it took. Returns
 * the length of the text (at most JSON_CHAR_MAX). */
#define JSON_CHAR_MAX 6
static size_t escape_char(const char *s, size_t n, size_t *used, char out[JSON_CHAR_MAX + 1])
{
    unsigned char c = (unsigned char)s[0];
    size_t len = tap_utf8_char_len(s, n);
    if (len == 0) { /* not UTF-8: the replacement character */
        *used = 1;
        memcpy(out, "\\ufffd", 6);
        return 6;
    }
    *used = len;
    if (c == '"' || c == '\\') {
        out[0] = '\\';
        out[1] = (char)c;
        return 2;
    }
    if (c < 0x20 || c == 0x7f) {
        static const char hex[] = "0123456789abcdef";
        memcpy(out, "\\u00", 4);
        out[4] = hex[c >> 4];
        out[5] = hex[c & 15];
        return 6;
    }
    memcpy(out, s, len);
    return len;
}

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    char text[JSON_CHAR_MAX + 1];
    for (size_t n = strlen(s), i = 0, used; i < n; i += used)
        fwrite(text, 1, escape_char(s + i, n - i, &used, text), f);
    fputc('"', f);
}

size_t json_string_buf(char *dst, size_t cap, const char *s)
{
    char text[JSON_CHAR_MAX + 1];
    size_t out = 0;
    if (cap < 3)
        return 0;
    dst[out++] = '"';
    for (size_t n = strlen(s), i = 0, used; i < n; i += used) {
        size_t len = escape_char(s + i, n - i, &used, text);
        if (out + len + 2 > cap) /* room for the closing quote and the NUL */
            return 0;
        memcpy(dst + out, text, len);
        out += len;
    }
    dst[out++] = '"';
    dst[out] = '\0';
    return out;
}

void json_number(FILE *f, double v)
{
    if (!isfinite(v))
        v = 0;
    fprintf(f, "%.10g", v);
}

void json_number_or_null(FILE *f, double v, bool known)
{
    if (known)
        json_number(f, v);
    else
        fputs("null", f);
}
