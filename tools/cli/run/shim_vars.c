/* `nccltap run`'s options for the shim's variables, and the check of the
 * environment's names: see shim_vars.h. */
#include "shim_vars.h"
#include "usage.h"
#include "util.h"

#include "base/config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool timing_valid(const char *s)
{
    enum tap_timing_mode m;
    return tap_parse_timing(s, &m) == 0;
}

static bool hang_timeout_valid(const char *s)
{
    uint32_t v;
    return tap_parse_u32(s, 0, TAP_HANG_TIMEOUT_S_MAX, &v) == 0;
}

static bool interval_valid(const char *s)
{
    uint32_t v;
    return tap_parse_u32(s, TAP_INTERVAL_MS_MIN, TAP_INTERVAL_MS_MAX, &v) == 0;
}

static bool ops_jsonl_valid(const char *s)
{
    enum tap_ops_jsonl v;
    return tap_parse_ops_jsonl(s, &v) == 0;
}

/* A Python function's name, as tools/python/sitecustomize.py takes it:
 * NAME or Class.NAME (identifiers), optionally after FILE and a colon. */
static bool step_function_valid(const char *s)
{
    const char *colon = strrchr(s, ':'), *p = colon ? colon + 1 : s;
    bool start = true;
    if (!*p)
        return false;
    for (; *p; p++) {
        bool letter = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_';
        bool digit = *p >= '0' && *p <= '9';
        if (*p == '.' && !start)
            start = true;
        else if (letter || (digit && !start))
            start = false;
        else
            return false;
    }
    return !start;
}

/* The shim keeps the directory's name in a buffer of 4096 bytes. */
static bool dir_valid(const char *s) { return s[0] && strlen(s) < sizeof tap_config.prom_dir; }

#define STR_(x) #x
#define STR(x) STR_(x)

static const struct {
    const char *option, *var;
    bool (*valid)(const char *value);
    const char *accepted;
} shim_vars[] = {
    { "timing", "NCCLTAP_TIMING", timing_valid, "auto, all, pairs or off" },
    { "hang-timeout", "NCCLTAP_HANG_TIMEOUT_S", hang_timeout_valid,
      "seconds from 0 (off) to " STR(TAP_HANG_TIMEOUT_S_MAX) },
    { "interval-ms", "NCCLTAP_INTERVAL_MS", interval_valid,
      "milliseconds from " STR(TAP_INTERVAL_MS_MIN) " to " STR(TAP_INTERVAL_MS_MAX) },
    { "ops-jsonl", "NCCLTAP_OPS_JSONL", ops_jsonl_valid, "0, 1 or inspector" },
    { "prom-dir", "NCCLTAP_PROM_DIR", dir_valid, "a directory (at most 4095 bytes)" },
    { "step-function", "NCCLTAP_STEP_FUNCTION", step_function_valid,
      "a Python function's name: NAME, Class.NAME or FILE.py:NAME" },
};

int shim_var_set(const char *argv0, const char *option, const char *value)
{
    for (size_t i = 0; i < sizeof shim_vars / sizeof shim_vars[0]; i++) {
        if (strcmp(option, shim_vars[i].option) != 0)
            continue;
        if (!shim_vars[i].valid(value))
            return usage_error(argv0, "--%s takes %s, not \"%s\"", option, shim_vars[i].accepted, value);
        setenv(shim_vars[i].var, value, 1);
        return 0;
    }
    return usage_error(argv0, "--%s sets no variable (nccltap's mistake)", option);
}

void shim_vars_check_env(void)
{
    extern char **environ;
    for (char **e = environ; *e; e++) {
        size_t len;
        const char *nearest = tap_config_misspelled(*e, &len);
        if (nearest)
            msg("%.*s is not a variable nccltap reads: did you mean %s? (nccltap help config lists them)",
                (int)(len < 128 ? len : 128), *e, nearest);
    }
    setenv("NCCLTAP_VARS_CHECKED", "1", 1);
}
