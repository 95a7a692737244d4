/* Formatting the renderers share (format.h). */
#include "format.h"

#include "escape.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *human_bytes(double b, char buf[16])
{
    static const char *const unit[] = { "", "K", "M", "G", "T", "P", "E" };
    size_t u = 0;
    while (b >= 1024.0 && u + 1 < sizeof unit / sizeof unit[0]) {
        b /= 1024.0;
        u++;
    }
    snprintf(buf, 16, b == (double)(long long)b ? "%.0f%s" : "%.1f%s", b, unit[u]);
    return buf;
}

json_t *site_frame_json(const struct site_frame *f)
{
    return json_pack("{s:s, s:s, s:s, s:i, s:s, s:I}", "function", f->function,
        "inlined_into", f->inlined_into, "file", f->file, "line", f->line, "library", f->library,
        "offset", (json_int_t)f->offset);
}

void print_rank_list(const int *v, size_t n, FILE *out)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        fprintf(out, "%s%d", i ? ", " : "", v[i]);
        if (j > i)
            fprintf(out, "-%d", v[j]);
        i = j + 1;
    }
}

char *distinct_names(const struct report *r, size_t offset, size_t max, size_t *count)
{
    const char **seen = xcalloc(r->nfiles, sizeof *seen);
    size_t n = 0;
    for (size_t i = 0; i < r->nfiles; i++) {
        const char *v = *(const char *const *)((const char *)&r->files[i] + offset);
        if (!v[0])
            continue;
        size_t j = 0;
        while (j < n && strcmp(seen[j], v) != 0)
            j++;
        if (j == n)
            seen[n++] = v;
    }
    char buf[SHOWN_MAX];
    size_t len = 1;
    for (size_t i = 0; i < n && i < max; i++)
        len += strlen(shown(seen[i], buf)) + 2;
    char *s = xcalloc(len + 5, 1);
    for (size_t i = 0; i < n && i < max; i++) {
        if (i)
            strcat(s, ", ");
        strcat(s, shown(seen[i], buf));
    }
    if (n > max)
        strcat(s, ", ...");
    free(seen);
    *count = n;
    return s;
}
