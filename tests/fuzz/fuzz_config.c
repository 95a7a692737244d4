/* libFuzzer target: the shim's configuration parsers, each a pure
 * function over one variable's value (config.c, out_dir.c, run_id.c).
 * Whatever the value, no crash, and what a parser accepts is within what
 * docs/configuration.md's table promises. */
#include "base/config.h"
#include "base/out_dir.h"
#include "base/run_id.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *value;

/* getenv for tap_run_id_of_launcher: every variable holds the input. */
static char *get(const char *name)
{
    (void)name;
    return (char *)value;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    /* The first two bytes choose a range, the rest is the value. */
    uint32_t min = data[0] % 16, max = min + (uint32_t)data[1] * 1000u;
    char *s = malloc(size - 1);
    memcpy(s, data + 2, size - 2);
    s[size - 2] = '\0';
    value = s;

    uint32_t u;
    if (tap_parse_u32(s, min, max, &u) == 0) {
        if (u < min || u > max || s[strspn(s, "0123456789")] != '\0')
            abort();
    }
    double pct;
    if (tap_parse_pct(s, &pct) == 0 && !(pct > 0 && pct <= 100))
        abort();
    bool flag;
    if (tap_parse_flag(s, &flag) == 0 && strcmp(s, "0") != 0 && strcmp(s, "1") != 0)
        abort();
    enum tap_ops_jsonl jsonl;
    if (tap_parse_ops_jsonl(s, &jsonl) == 0 &&
        !(jsonl == TAP_OPS_JSONL_OFF ? !strcmp(s, "0")
          : jsonl == TAP_OPS_JSONL_NCCLTAP ? !strcmp(s, "1")
          : jsonl == TAP_OPS_JSONL_INSPECTOR && !strcmp(s, "inspector")))
        abort();
    /* Every launcher variable holds the input: a shape is whole nodes. */
    uint32_t ranks, nodes;
    if (tap_parse_job_shape(get, &ranks, &nodes) == 0 && !(nodes >= 1 && nodes <= ranks))
        abort();
    mode_t mode;
    if (tap_out_parse_mode(s, &mode) == 0 && (mode > 0777 || (mode & 0700) != 0700))
        abort();
    char id[64];
    memset(id, 0x55, sizeof id);
    if (tap_run_id_of_launcher(id, sizeof id, get)) {
        size_t n = strnlen(id, sizeof id);
        if (n == 0 || n == sizeof id)
            abort();
        for (size_t i = 0; i < n; i++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", id[i]))
                abort();  /* not a file-name character */
    }
    free(s);
    return 0;
}
