/* Names from the application as the outputs write them: cut at whole
 * characters, and always valid JSON. */
#include <stdlib.h>
#include <string.h>

#include "base/json_writer.h"
#include "test.h"
#include "base/utf8.h"

static char *json_of(const char *s)
{
    static char out[512];
    FILE *f = fmemopen(out, sizeof out, "w");
    json_string(f, s);
    fclose(f);
    return out;
}

void test_utf8(void)
{
    CHECK(tap_utf8_char_len("a", 1) == 1);
    CHECK(tap_utf8_char_len("\xc3\xa9", 2) == 2);                /* é */
    CHECK(tap_utf8_char_len("\xe2\x82\xac", 3) == 3);            /* € */
    CHECK(tap_utf8_char_len("\xf0\x9f\x98\x80", 4) == 4);        /* U+1F600 */
    CHECK(tap_utf8_char_len("\xc3", 1) == 0);                    /* truncated */
    CHECK(tap_utf8_char_len("\xa9", 1) == 0);                    /* stray continuation */
    CHECK(tap_utf8_char_len("\xc0\xaf", 2) == 0);                /* overlong '/' */
    CHECK(tap_utf8_char_len("\xe0\x80\xaf", 3) == 0);            /* overlong */
    CHECK(tap_utf8_char_len("\xed\xa0\x80", 3) == 0);            /* surrogate */
    CHECK(tap_utf8_char_len("\xf4\x90\x80\x80", 4) == 0);        /* above U+10FFFF */
    CHECK(tap_utf8_char_len("\xff", 1) == 0);

    /* A 64-byte field holds 63 bytes: a cut inside "é" drops all of it. */
    char name[64], src[80];
    memset(src, 'a', 62);
    strcpy(src + 62, "\xc3\xa9");
    tap_utf8_copy(name, sizeof name, src);
    CHECK(strlen(name) == 62);
    strcpy(src + 61, "\xc3\xa9");
    tap_utf8_copy(name, sizeof name, src);
    CHECK(strlen(name) == 63 && !strcmp(name + 61, "\xc3\xa9"));
    tap_utf8_copy(name, 1, "abc");
    CHECK(name[0] == '\0');

    CHECK(!strcmp(json_of("caf\xc3\xa9"), "\"caf\xc3\xa9\""));
    CHECK(!strcmp(json_of("a\xff" "b"), "\"a\\ufffdb\""));
    CHECK(!strcmp(json_of("\xe2\x82"), "\"\\ufffd\\ufffd\""));
    CHECK(!strcmp(json_of("q\"\\"), "\"q\\\"\\\\\""));
    CHECK(!strcmp(json_of("\x1b[31m\x7f"), "\"\\u001b[31m\\u007f\""));

    /* The in-memory writer gives the same text, or nothing when it does
     * not fit: never a string cut open. */
    static const char *const names[] = {"caf\xc3\xa9", "a\xff" "b", "\xe2\x82", "q\"\\", "\x1b[31m\x7f", ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char buf[64];
        size_t n = json_string_buf(buf, sizeof buf, names[i]);
        CHECK(n == strlen(json_of(names[i])) && !strcmp(buf, json_of(names[i])));
        CHECK(json_string_buf(buf, n + 1, names[i]) == n);  /* exactly room for it and the NUL */
        CHECK(json_string_buf(buf, n, names[i]) == 0);
    }
}
