/* libFuzzer target: the shim's JSON string writer (json_writer.c), its
 * UTF-8 truncation (utf8.c) and the Prometheus label value writer
 * (prom_text.c), on any bytes an application could name a communicator or
 * a host with. What is written is one JSON string that
 * a JSON parser (yajl; jansson's names clash with the writer's) reads back; text that was UTF-8 comes back unchanged; a copy
 * truncated to any size never ends inside a character; the in-memory
 * writer's text is the stream writer's. */
#include "base/json_writer.h"
#include "writers/prom_text.h"
#include "base/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether s is UTF-8 all through, by the writer's own rule. */
static int is_utf8(const char *s)
{
    for (size_t n = strlen(s), i = 0, len; i < n; i += len)
        if ((len = tap_utf8_char_len(s + i, n - i)) == 0)
            return 0;
    return 1;
}

/* The one value of a JSON text, when it is a string. */
struct parsed {
    int values;
    char *text;
    size_t len;
};

static int other(void *ctx)
{
    ((struct parsed *)ctx)->values++;
    return 1;
}

static int other_bool(void *ctx, int b)
{
    (void)b;
    return other(ctx);
}

static int other_number(void *ctx, const char *s, size_t len)
{
    (void)s, (void)len;
    return other(ctx);
}

static int string(void *ctx, const unsigned char *s, size_t len)
{
    struct parsed *p = ctx;
    if (p->values++ == 0) {
        p->text = malloc(len + 1);
        memcpy(p->text, s, len);
        p->text[len] = '\0';
        p->len = len;
    }
    return 1;
}

/* A Prometheus label value: UTF-8, no raw newline or double quote, only
 * the format's escapes (\\ \" \n); read back, UTF-8 text is unchanged. */
static void check_prom_label(const char *s)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    tap_prom_label_value(f, s);
    fclose(f);
    if (strlen(out) != len || !is_utf8(out))
        abort();
    char *back = malloc(len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (out[i] == '\n' || out[i] == '"')
            abort();  /* would end the value or the line */
        if (out[i] == '\\') {
            char e = ++i < len ? out[i] : 0;
            if (e != '\\' && e != '"' && e != 'n')
                abort();  /* not an escape the format has */
            back[n++] = e == 'n' ? '\n' : e;
        } else {
            back[n++] = out[i];
        }
    }
    back[n] = '\0';
    if (is_utf8(s) && strcmp(back, s) != 0)
        abort();
    free(back);
    free(out);
}

static const yajl_callbacks callbacks = {
    .yajl_null = other, .yajl_boolean = other_bool, .yajl_number = other_number,
    .yajl_string = string, .yajl_start_map = other, .yajl_start_array = other,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';  /* a C string: it ends at the first NUL */

    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    json_string(f, s);
    fclose(f);
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)out[i] < 0x20)
            abort();  /* a raw control character in JSON */
    struct parsed p = { 0, NULL, 0 };
    yajl_handle h = yajl_alloc(&callbacks, NULL, &p);
    if (yajl_parse(h, (const unsigned char *)out, len) != yajl_status_ok ||
        yajl_complete_parse(h) != yajl_status_ok || p.values != 1 || !p.text)
        abort();  /* not one valid JSON string */
    yajl_free(h);
    if (is_utf8(s) && (p.len != strlen(s) || memcmp(p.text, s, p.len) != 0))
        abort();  /* UTF-8 text must come back as it was */
    free(p.text);
    /* The in-memory writer (per-op lines) gives the same text, or 0 when
     * it does not fit. */
    char *buf = malloc(len + 1);
    if (json_string_buf(buf, len + 1, s) != len || memcmp(buf, out, len) != 0 || buf[len] != '\0')
        abort();
    if (json_string_buf(buf, len, s) != 0)
        abort();
    free(buf);
    free(out);

    /* Truncation: a prefix of s, NUL-terminated within cap, never cut
     * inside a character of a UTF-8 string. */
    size_t n = strlen(s);
    char dst[80];
    for (size_t cap = 1; cap <= sizeof dst && cap <= n + 1; cap++) {
        memset(dst, 0x55, sizeof dst);
        tap_utf8_copy(dst, cap, s);
        size_t m = strnlen(dst, cap);
        if (m == cap || strncmp(dst, s, m) != 0)
            abort();
        if (is_utf8(s) && !is_utf8(dst))
            abort();
    }
    check_prom_label(s);
    free(s);
    return 0;
}
