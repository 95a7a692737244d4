/* Copying the fields of a JSON object into a C struct, described by a
 * table, so that every field is named once and an error names the field.
 * rank_parse.c streams per-rank files with the same tables; json_fields_load
 * reads a jansson object with one (the members rank_parse keeps as JSON). */
#ifndef NCCLTAP_CLI_JSON_FIELDS_H
#define NCCLTAP_CLI_JSON_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

enum kind {
    K_INT,    /* int */
    K_LL,     /* long long */
    K_U64,    /* uint64_t: a count, never negative */
    K_NUM,    /* double, from an integer or a real */
    K_STR,    /* const char *, pointing into the parsed document (intern it to keep it) */
    K_BOOL,   /* bool */
};

struct field {
    const char *path;  /* "key", or "object.key" one level down */
    enum kind kind;
    size_t offset;
    bool optional;     /* when absent, the destination keeps its default */
    bool nullable;     /* when null, likewise (a time of a row with no timed call) */
};

#define F(path, kind, type, member) { path, kind, offsetof(type, member), false, false }
#define OPT(path, kind, type, member) { path, kind, offsetof(type, member), true, false }
/* Optional, and null allowed: the destination keeps its default. */
#define NUL(path, kind, type, member) { path, kind, offsetof(type, member), true, true }
#define NFIELDS(table) (sizeof table / sizeof table[0])

/* What a value of kind k is, for messages: "a non-negative integer". */
const char *json_kind_name(enum kind k);

/* Stores each field of `obj` described in `table` into `dst`. Returns 0, or
 * -1 with `why` naming the field and what it should be. */
int json_fields_load(json_t *obj, const struct field *table, size_t n, void *dst,
                     char *why, size_t why_len);

#endif
