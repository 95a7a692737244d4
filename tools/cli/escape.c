#include "escape.h"

#include <stdbool.h>
#include <stdio.h>

/* The length of the UTF-8 sequence at s (1 for ASCII), or 0 when s does
 * not start a well-formed one. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 :
               s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* Whether the 3-byte character at s reorders or breaks the line a
 * terminal shows: U+2028 LINE and U+2029 PARAGRAPH SEPARATOR, the
 * bidirectional embeddings and overrides U+202A..U+202E (U+202E RIGHT-TO-
 * LEFT OVERRIDE shows what follows it reversed) and the isolates
 * U+2066..U+2069. */
static bool reorders_line(const unsigned char *s)
{
    if (s[0] != 0xe2)
        return false;
    if (s[1] == 0x80)
        return s[2] >= 0xa8 && s[2] <= 0xae;  /* U+2028..U+202E */
    return s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9;  /* U+2066..U+2069 */
}

/* How many bytes at s to print as \xNN: a control character, one that
 * reorders the line, a quote when `quotes`, or a byte that starts no
 * UTF-8 character. 0 for a character to print as it is; *len gets its
 * length. */
static size_t control_len(const unsigned char *s, bool quotes, size_t *len)
{
    *len = utf8_len(s);
    if (*len == 0)
        return 1;
    if (s[0] < 0x20 || s[0] == 0x7f || (quotes && (s[0] == '"' || s[0] == '\'')))
        return 1;
    if (s[0] == 0xc2 && s[1] <= 0x9f)
        return 2;  /* U+0080..U+009F: CSI (U+009B) and the other C1 controls */
    if (*len == 3 && reorders_line(s))
        return 3;
    return 0;
}

/* s into buf (size bytes, at least 4), escaped; " and ' too with
 * `quotes`, a backslash doubled with `backslash`. */
static const char *escaped(const char *s, bool quotes, bool backslash, char *buf, size_t size)
{
    size_t n = 0;
    const size_t room = size - 4;  /* for "..." and the NUL */
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t len;
        size_t c = control_len(p, quotes, &len);
        size_t need = c ? 4 * c : *p == '\\' && backslash ? 2 : len;
        if (n + need > room) {
            n += (size_t)snprintf(buf + n, size - n, "...");
            return buf;
        }
        if (c) {
            for (size_t i = 0; i < c; i++)
                n += (size_t)snprintf(buf + n, size - n, "\\x%02x", p[i]);
            p += c;
        } else if (*p == '\\' && backslash) {
            buf[n++] = '\\';
            buf[n++] = '\\';
            p++;
        } else {
            for (size_t i = 0; i < len; i++)
                buf[n++] = (char)*p++;
        }
    }
    buf[n] = '\0';
    return buf;
}

const char *shown(const char *s, char buf[SHOWN_MAX])
{
    return escaped(s, false, true, buf, SHOWN_MAX);
}

const char *shown_quoted(const char *s, char buf[SHOWN_MAX])
{
    return escaped(s, true, true, buf, SHOWN_MAX);
}

const char *shown_message(const char *s, char *buf, size_t size)
{
    return escaped(s, false, false, buf, size);
}
