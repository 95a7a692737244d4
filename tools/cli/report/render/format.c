/* Formatting the renderers share (format.h). */
#include "format.h"

#include "escape.h"
#include "merge.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>
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
    return json_pack("{s:s, s:s, s:s, s:i, s:s, s:I, s:b}", "function", f->function,
        "inlined_into", f->inlined_into, "file", f->file, "line", f->line, "library", f->library,
        "offset", (json_int_t)f->offset, "python", f->python);
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

static char *distinct_names(const struct report *r, size_t offset, size_t max, size_t *count)
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

#define FIELD(name) offsetof(struct rank_file, name)

void header_names(const struct report *r, size_t nranks, struct header_names *h)
{
    h->nranks = nranks;
    h->jobs = distinct_names(r, FIELD(job), 4, &h->njobs);
    h->hosts = distinct_names(r, FIELD(host), 4, &h->nhosts);
    h->versions = distinct_names(r, FIELD(nccl_version), 8, &h->nversions);
    h->timings = distinct_names(r, FIELD(timing), 4, &h->ntimings);
}

void header_names_free(struct header_names *h)
{
    free(h->jobs);
    free(h->hosts);
    free(h->versions);
    free(h->timings);
}

/* Whether the bracket at name[i] belongs to an operator's name
 * ("operator<<", the first '(' of "operator()"), not to a list. */
static bool in_operator(const char *name, size_t i)
{
    size_t k = i;
    while (k > 0 && strchr("<>=!+-*/%&|^~[]()", name[k - 1]))
        k--;
    if (k < 8 || strncmp(name + k - 8, "operator", 8) != 0)
        return false;
    if (name[i] == '(')
        return i == k;
    return i == k || (i - k == 1 && name[k] == '<');
}

/* The index just past the list opened at name[i], brackets of any kind
 * nested ("->" is no bracket); strlen(name) when it is not closed. */
static size_t past_list(const char *name, size_t i)
{
    int depth = 0;
    for (;; i++) {
        char c = name[i];
        if (!c)
            return i;
        if (c == '<' || c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == '>' && !(i > 0 && name[i - 1] == '-')) || c == ')' || c == ']' || c == '}')
            if (--depth == 0)
                return i + 1;
    }
}

const char *short_function(const char *name, char *buf, size_t len)
{
    static const char anon[] = "(anonymous namespace)", lambda[] = "{lambda(";
    size_t o = 0;
#define PUT(s, n) (o + (n) < len ? (memcpy(buf + o, (s), (n)), o += (n)) : (o = len - 1))
    for (size_t i = 0; name[i] && len;) {
        char c = name[i];
        if (c == '(' && !strncmp(name + i, anon, sizeof anon - 1)) {
            PUT(anon, sizeof anon - 1);
            i += sizeof anon - 1;
        } else if (c == '{' && !strncmp(name + i, lambda, sizeof lambda - 1)) {
            PUT("{lambda", 7); /* then "#1}" */
            i = past_list(name, i + sizeof lambda - 2);
        } else if ((c == '<' || c == '(') && !in_operator(name, i)) {
            size_t end = past_list(name, i);
            bool empty = end == i + 2;
            PUT(c == '<' ? "<" : "(", 1);
            if (!empty)
                PUT("\xe2\x80\xa6", 3); /* U+2026 */
            PUT(c == '<' ? ">" : ")", 1);
            i = end;
        } else {
            PUT(&name[i], 1);
            i++;
        }
    }
#undef PUT
    if (len)
        buf[o < len ? o : len - 1] = '\0';
    return buf;
}

void print_finding_site(const struct callsite *site, FILE *out)
{
    if (!site || !site->nframes)
        return;
    const struct site_frame *fr = &site->frames[0];
    char name[SHOWN_MAX];
    if (fr->file[0]) {
        fprintf(out, ", called from %s:%d", shown(path_base(fr->file), name), fr->line);
    } else {
        char cut[SHOWN_MAX];
        fprintf(out, ", called from %s",
                shown(fr->python ? fr->function : short_function(fr->function, cut, sizeof cut), name));
    }
}

size_t callsite_sites_of(const struct callsite_summary *s, const struct op_row *row, size_t *out, size_t max)
{
    size_t found = 0;
    for (size_t i = 0; i < s->nuses; i++) {
        const struct site_use *u = &s->uses[i];
        if (u->comm == row->comm && u->op == row->op && u->dtype == row->dtype && u->size_class == row->size_class) {
            if (found < max)
                out[found] = u->site;
            found++;
        }
    }
    return found;
}
