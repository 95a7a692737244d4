#include "json_writer.h"

#include <math.h>

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void json_number(FILE *f, double v)
{
    if (!isfinite(v))
        v = 0;
    fprintf(f, "%.10g", v);
}
