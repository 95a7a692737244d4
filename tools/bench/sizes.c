#include "sizes.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int size_parse(const char *s, size_t *out)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end != '\0' || v == 0 || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

static int parse_range(const char *spec, const char *colon, unsigned long factor,
                       size_t **out, char *why, size_t why_len)
{
    char lo_text[64];
    size_t lo_len = (size_t)(colon - spec);
    size_t lo, hi;
    if (lo_len >= sizeof lo_text)
        lo_len = sizeof lo_text - 1;
    memcpy(lo_text, spec, lo_len);
    lo_text[lo_len] = '\0';
    if (size_parse(lo_text, &lo) || size_parse(colon + 1, &hi)) {
        snprintf(why, why_len, "bad size range '%s' (want MIN:MAX, e.g. 8:1G)", spec);
        return -1;
    }
    if (lo > hi) {
        snprintf(why, why_len, "size range '%s' has MIN > MAX", spec);
        return -1;
    }
    int n = 0;
    for (size_t s = lo; ; s *= factor) {
        n++;
        if (s > hi / factor)
            break;
    }
    size_t *v = malloc((size_t)n * sizeof *v);
    if (!v) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    size_t s = lo;
    for (int i = 0; i < n; i++, s *= factor)
        v[i] = s;
    *out = v;
    return n;
}

static int parse_list(const char *spec, size_t **out, char *why, size_t why_len)
{
    int n = 1;
    for (const char *p = spec; *p; p++)
        n += *p == ',';
    size_t *v = malloc((size_t)n * sizeof *v);
    char *copy = strdup(spec);
    if (!v || !copy) {
        free(v);
        free(copy);
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    int i = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (size_parse(tok, &v[i])) {
            snprintf(why, why_len, "bad size '%s' in '%s' (want e.g. 8, 1K, 64M, 1G)", tok, spec);
            free(v);
            free(copy);
            return -1;
        }
        i++;
    }
    free(copy);
    if (i == 0) {
        snprintf(why, why_len, "no size in '%s'", spec);
        free(v);
        return -1;
    }
    *out = v;
    return i;
}

int sizes_expand(const char *spec, unsigned long factor, size_t **out,
                 char *why, size_t why_len)
{
    const char *colon = strchr(spec, ':');
    if (colon)
        return parse_range(spec, colon, factor, out, why, why_len);
    return parse_list(spec, out, why, why_len);
}
