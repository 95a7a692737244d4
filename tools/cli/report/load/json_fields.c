#include "json_fields.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The value at "key" or "object.key", or NULL. */
static json_t *lookup(json_t *obj, const char *path)
{
    const char *dot = strchr(path, '.');
    if (!dot)
        return json_object_get(obj, path);
    char outer[32];
    snprintf(outer, sizeof outer, "%.*s", (int)(dot - path), path);
    json_t *inner = json_object_get(obj, outer);
    return json_is_object(inner) ? json_object_get(inner, dot + 1) : NULL;
}

const char *json_kind_name(enum kind k)
{
    switch (k) {
    case K_INT: case K_LL: return "an integer";
    case K_U64: return "a non-negative integer";
    case K_NUM: return "a number";
    case K_STR: return "a string";
    case K_BOOL: return "true or false";
    }
    return "?";
}

int json_fields_load(json_t *obj, const struct field *table, size_t n, void *dst,
                     char *why, size_t why_len)
{
    if (!json_is_object(obj)) {
        snprintf(why, why_len, "not an object");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const struct field *f = &table[i];
        json_t *v = lookup(obj, f->path);
        if (!v) {
            if (f->optional)
                continue;
            snprintf(why, why_len, "\"%s\" is missing", f->path);
            return -1;
        }
        if (f->nullable && json_is_null(v))
            continue;
        void *p = (char *)dst + f->offset;
        bool ok = true;
        switch (f->kind) {
        case K_INT:
            ok = json_is_integer(v);
            if (ok)
                *(int *)p = (int)json_integer_value(v);
            break;
        case K_LL:
            ok = json_is_integer(v);
            if (ok)
                *(long long *)p = json_integer_value(v);
            break;
        case K_U64:
            ok = json_is_integer(v) && json_integer_value(v) >= 0;
            if (ok)
                *(uint64_t *)p = (uint64_t)json_integer_value(v);
            break;
        case K_NUM:
            ok = json_is_number(v);
            if (ok)
                *(double *)p = json_number_value(v);
            break;
        case K_STR:
            ok = json_is_string(v);
            if (ok)
                *(const char **)p = json_string_value(v);
            break;
        case K_BOOL:
            ok = json_is_boolean(v);
            if (ok)
                *(bool *)p = json_is_true(v);
            break;
        }
        if (!ok) {
            snprintf(why, why_len, "\"%s\" is not %s", f->path, json_kind_name(f->kind));
            return -1;
        }
    }
    return 0;
}
