/* libFuzzer target: a run directory written from the bytes, loaded as
 * `nccltap report DIR` loads it, analysed, and rendered in every form the
 * report has: the text, --findings, --json, --html and --perfetto. The
 * bytes are up to five files, split at NUL bytes (which none of them may
 * hold): two processes' rank files and per-op logs (JSON lines), and the
 * first one's hang report. Whatever the bytes, no crash, no leak, and what
 * the user reads holds nothing an input forged:
 * - the text and --findings: no byte a terminal acts on (C0 controls but
 *   the newline, DEL, C1 controls, characters that reorder or break the
 *   line), whatever the names in the files;
 * - --json and --perfetto: one JSON document each;
 * - --html: every '<' opens one of the page's own elements, and no
 *   attribute is an event handler (on...), so that no name adds markup
 *   or script. */
#include "analysis.h"
#include "findings.h"
#include "fuzz_scratch.h"
#include "load.h"
#include "os_interference.h"
#include "render.h"
#include "strip.h"
#include "summary.h"
#include "timeline.h"
#include "util.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const parts[] = { "nccltap-fuzz-1.json", "nccltap-fuzz-1.ops.jsonl", "nccltap-fuzz-2.json",
                                     "nccltap-fuzz-2.ops.jsonl", "nccltap-fuzz-1.hang.json" };
#define NPARTS (sizeof parts / sizeof parts[0])

/* The run directory, emptied for each input. */
static const char *dir;

static void write_part(const char *name, const uint8_t *p, size_t n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *out = fopen(path, "wb");
    if (!out || (n && fwrite(p, n, 1, out) != 1) || fclose(out) != 0)
        abort();
}

static void write_dir(const uint8_t *data, size_t size)
{
    dir = fuzz_scratch("render");
    for (size_t i = 0; i < NPARTS; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, parts[i]);
        unlink(path);
    }
    const uint8_t *p = data, *end = data + size;
    for (size_t i = 0; i < NPARTS && p <= end; i++) {
        const uint8_t *nul = memchr(p, 0, (size_t)(end - p));
        const uint8_t *stop = nul ? nul : end;
        if (stop > p || i == 0)
            write_part(parts[i], p, (size_t)(stop - p));
        p = stop + 1;
    }
}

/* The length of the UTF-8 character at s (well formed, within n), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

/* What a terminal acts on: C0 but the newline, DEL; C1 (U+0080..U+009F)
 * and U+2028..U+202E, U+2066..U+2069 as UTF-8. */
static void check_terminal(const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        if ((s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f)
            abort();
        size_t len = utf8_len(s + i, n - i);
        if (len == 2 && s[i] == 0xc2 && s[i + 1] <= 0x9f)
            abort();
        if (len == 3 && s[i] == 0xe2 && ((s[i + 1] == 0x80 && s[i + 2] >= 0xa8 && s[i + 2] <= 0xae) ||
                                         (s[i + 1] == 0x81 && s[i + 2] >= 0xa6 && s[i + 2] <= 0xa9)))
            abort();
        i += len ? len : 1;
    }
}

static void check_json(const char *text, size_t n)
{
    json_error_t err;
    json_t *doc = json_loadb(text, n, 0, &err);
    if (!doc)
        abort();
    json_decref(doc);
}

/* The elements the page is made of (render/html*.c). */
static bool own_element(const char *name, size_t len)
{
    static const char *const names[] = { "html", "head", "meta", "title", "style", "body", "script", "header",
                                         "section", "h1", "h2", "h3", "p", "a", "br", "div", "code", "ol",
                                         "li", "dl", "dt", "dd", "table", "thead", "tbody", "tr", "th", "td",
                                         "input", "span", "svg", "g", "rect", "line", "polyline", "circle", "text" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && strncmp(names[i], name, len) == 0)
            return true;
    return false;
}

/* The attributes of a tag from `a`, to its '>' (returned): none is an
 * event handler (on...), and a quoted value ends at its own quote. */
static const char *attributes(const char *a, const char *end)
{
    while (a < end && *a != '>') {
        if (*a == ' ' || *a == '\n' || *a == '/') {
            a++;
            continue;
        }
        const char *name = a;
        while (a < end && *a != '=' && *a != ' ' && *a != '>' && *a != '\n')
            a++;
        if (a - name >= 2 && name[0] == 'o' && name[1] == 'n')
            abort();
        if (a < end && *a == '=') {
            char quote = ++a < end ? *a : 0;
            if (quote != '"' && quote != '\'')
                abort();  /* the page quotes every value */
            const char *close = memchr(a + 1, quote, (size_t)(end - a - 1));
            if (!close || memchr(a + 1, '<', (size_t)(close - a - 1)))
                abort();
            a = close + 1;
        }
    }
    return a;
}

static void check_html(const char *text, size_t n)
{
    const char *end = text + n;
    for (const char *p = memchr(text, '<', n); p; p = memchr(p + 1, '<', (size_t)(end - p - 1))) {
        const char *name = p + 1;
        if ((size_t)(end - name) >= 8 && strncmp(name, "!DOCTYPE", 8) == 0)
            continue;
        if (name < end && *name == '/')
            name++;
        size_t len = 0;
        while (name + len < end && ((name[len] >= 'a' && name[len] <= 'z') || (name[len] >= '0' && name[len] <= '9')))
            len++;
        if (!own_element(name, len))
            abort();
        const char *a = attributes(name + len, end);
        /* The page's own script and style are text to their end tag. */
        const char *close = name[-1] == '/' ? NULL : len == 6 && strncmp(name, "script", 6) == 0 ? "</script>"
                          : len == 5 && strncmp(name, "style", 5) == 0 ? "</style>" : NULL;
        if (close) {
            p = memmem(a, (size_t)(end - a), close, strlen(close));
            if (!p)
                abort();
        }
    }
}

/* One rendering into memory, checked by `check`. */
static void render(int (*print)(FILE *out, void *ctx), void *ctx, void (*check)(const char *, size_t))
{
    char *text = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&text, &n);
    if (!out)
        abort();
    print(out, ctx);
    if (fclose(out) != 0)
        abort();
    check(text, n);
    free(text);
}

struct run {
    struct report *r;
    struct report_summary *s;
    const struct strip *strip;
    const struct timeline *t;
};

static int text(FILE *out, void *ctx)
{
    const struct run *c = ctx;
    const struct text_options wide = { .wide = true };
    return report_print_text(c->r, c->s, &wide, out);
}

static int findings(FILE *out, void *ctx)
{
    const struct run *c = ctx;
    return report_print_findings(c->s, false, out) < 0;
}

static int json(FILE *out, void *ctx)
{
    const struct run *c = ctx;
    return report_print_json(c->r, c->s, out);
}

static int html(FILE *out, void *ctx)
{
    const struct run *c = ctx;
    return report_print_html(c->r, c->s, c->strip, out);
}

static int perfetto(FILE *out, void *ctx)
{
    const struct run *c = ctx;
    return report_write_perfetto(c->r, c->t, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    write_dir(data, size);
    struct report r;
    if (report_load(dir, NULL, &r) != 0)
        return 0;
    struct report_analysis a;
    const struct analysis_options o = { .summary = { .top = 10 }, .strip = true };
    report_analyze(&r, &o, &a);
    /* The timeline too, from the same OS analysis (the facade makes it
     * instead of the summary, for --perfetto). */
    struct timeline t;
    const struct tl_options all = { .from_s = 0, .to_s = -1 };
    timeline_build(&r, &a.summary.os, &all, &t);
    struct run c = { &r, &a.summary, &a.strip, &t };
    render(text, &c, check_terminal);
    render(findings, &c, check_terminal);
    render(json, &c, check_json);
    render(html, &c, check_html);
    render(perfetto, &c, check_json);
    timeline_free(&t);
    report_analysis_free(&r, &a);
    report_free(&r);
    return 0;
}
