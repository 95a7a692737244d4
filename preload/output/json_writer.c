#include "json_writer.h"

#include <math.h>
#include <string.h>

#include "utf8.h"

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t len = tap_utf8_char_len(s + i, n - i);
        if (len == 0) {
            fputs("\\ufffd", f); /* not UTF-8: the replacement character */
            i++;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fwrite(s + i, 1, len, f);
        i += len;
    }
    fputc('"', f);
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
