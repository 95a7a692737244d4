#include "writers/prom_text.h"

#include <math.h>
#include <string.h>

#include "base/decimal.h"
#include "base/utf8.h"

void tap_prom_family(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void tap_prom_label_value(FILE *f, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        /* A run of plain ASCII at once: names are mostly that. */
        size_t plain = 0;
        while (plain < n && (unsigned char)s[plain] < 0x80 && s[plain] != '\\' && s[plain] != '"' &&
               s[plain] != '\n')
            plain++;
        fwrite(s, 1, plain, f);
        s += plain;
        n -= plain;
        if (!n)
            break;
        size_t len = tap_utf8_char_len(s, n);
        if (!len) {
            fputs("\xef\xbf\xbd", f); /* U+FFFD for one byte that is not UTF-8 */
            len = 1;
        } else if (*s == '\\') {
            fputs("\\\\", f);
        } else if (*s == '"') {
            fputs("\\\"", f);
        } else if (*s == '\n') {
            fputs("\\n", f);
        } else {
            fwrite(s, 1, len, f);
        }
        s += len;
        n -= len;
    }
}

void tap_prom_label(FILE *f, const char *sep, const char *name, const char *value)
{
    fputs(sep, f);
    fputs(name, f);
    fputs("=\"", f);
    tap_prom_label_value(f, value);
    fputc('"', f);
}

void tap_prom_value(FILE *f, double v)
{
    if (isnan(v))
        fputs("NaN", f);
    else if (isinf(v))
        fputs(v > 0 ? "+Inf" : "-Inf", f);
    else
        fprintf(f, "%.10g", v);
}

void tap_prom_uint(FILE *f, uint64_t v)
{
    char buf[TAP_DECIMAL_MAX];
    char *p = tap_decimal(v, buf + sizeof buf);
    fwrite(p, 1, (size_t)(buf + sizeof buf - p), f);
}

uint64_t tap_prom_inspector_size(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
    if (!bytes) {
        snprintf(buf, len, "0B");
        return 0;
    }
    unsigned unit = 0;
    uint64_t whole = bytes, unit_bytes = 1;
    while (whole >= 1024 && unit < 4) {
        whole /= 1024; /* floor at every step is floor of the whole quotient */
        unit_bytes *= 1024;
        unit++;
    }
    snprintf(buf, len, "%llu-%llu%s", (unsigned long long)whole, (unsigned long long)whole + 1, units[unit]);
    return whole * unit_bytes;
}
