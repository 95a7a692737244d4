/* Reading a per-rank file's call sites: "callsite_depth", "callsites"
 * (frames, the names the shim gave them, the Python line that made the
 * calls, and per-row counts) and "modules"
 * (the load map). All optional:
 * files written before call sites existed, or with NCCLTAP_CALLSITE_DEPTH=0,
 * have none. Symbolizing the frames is symbolize.c's, once all files are in. */
#include "load.h"
#include "json_fields.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct field row_fields[] = {
    F("comm", K_STR, struct site_row, comm),
    F("op", K_STR, struct site_row, op),
    F("dtype", K_STR, struct site_row, dtype),
    F("size_class", K_U64, struct site_row, size_class),
    F("calls", K_U64, struct site_row, calls),
    F("bytes_total", K_U64, struct site_row, bytes_total),
    F("timed", K_U64, struct site_row, timed),
    F("time_ns", K_U64, struct site_row, t_sum),
    F("bw_bytes", K_NUM, struct site_row, bw_bytes),
    F("bw_busbytes", K_NUM, struct site_row, bw_busbytes),
};

/* An address written as a "0x..." string (JSON numbers lose 64-bit values). */
static bool address(json_t *v, uint64_t *out)
{
    const char *s = json_string_value(v);
    if (!s || strncmp(s, "0x", 2) != 0)
        return false;
    char *end;
    errno = 0;
    *out = strtoull(s + 2, &end, 16);
    return !errno && end != s + 2 && !*end;
}

static json_t *optional_array(json_t *root, const char *key, char *why, size_t why_len)
{
    json_t *a = json_object_get(root, key);
    if (a && !json_is_array(a))
        snprintf(why, why_len, "\"%s\" is not an array", key);
    return json_is_array(a) ? a : NULL;
}

static int load_python_frame(struct report *r, json_t *obj, struct site_frame *f)
{
    json_t *file = json_object_get(obj, "file"), *line = json_object_get(obj, "line"),
           *function = json_object_get(obj, "function");
    if (!json_is_string(file) || !json_is_string(function) || !json_is_integer(line) ||
        json_integer_value(line) < 0 || json_integer_value(line) > INT32_MAX)
        return -1;
    f->python = true;
    f->library = report_intern(r, "python");
    f->function = report_intern(r, json_string_value(function));
    f->file = report_intern(r, json_string_value(file));
    f->line = (int)json_integer_value(line);
    f->inlined_into = f->recorded = "";
    return 0;
}

static int load_site(struct report *r, json_t *obj, struct callsite *site, char *why, size_t why_len)
{
    json_t *id = json_object_get(obj, "id"), *frames = json_object_get(obj, "frames"),
           *rows = json_object_get(obj, "rows"), *symbols = json_object_get(obj, "symbols"),
           *python = json_object_get(obj, "python");
    if (!json_is_integer(id) || json_integer_value(id) < 0 || !json_is_array(frames) || !json_is_array(rows)) {
        snprintf(why, why_len, "needs \"id\" (a number), \"frames\" and \"rows\" (arrays)");
        return -1;
    }
    site->id = (unsigned)json_integer_value(id);
    /* The Python frames first: they made the call the native frames show. */
    size_t npy = json_array_size(python);
    site->nframes = npy + json_array_size(frames);
    site->frames = report_alloc(r, site->nframes * sizeof *site->frames);
    for (size_t k = 0; k < npy; k++)
        if (load_python_frame(r, json_array_get(python, k), &site->frames[k]) != 0) {
            snprintf(why, why_len, "\"python\"[%zu] needs \"file\", \"function\" (strings) and \"line\"", k);
            return -1;
        }
    for (size_t k = 0; k + npy < site->nframes; k++) {
        struct site_frame *f = &site->frames[npy + k];
        if (!address(json_array_get(frames, k), &f->addr)) {
            snprintf(why, why_len, "\"frames\"[%zu] is not an address (\"0x...\")", k);
            return -1;
        }
        f->library = f->function = f->inlined_into = f->file = "";
        /* Optional (files before nccltap 0.x had none); a frame past its end has none. */
        const char *name = json_string_value(json_array_get(symbols, k));
        f->recorded = name ? report_intern(r, name) : "";
    }
    site->nrows = json_array_size(rows);
    site->rows = report_alloc(r, site->nrows * sizeof *site->rows);
    for (size_t k = 0; k < site->nrows; k++) {
        struct site_row *row = &site->rows[k];
        char inner[160];
        if (json_fields_load(json_array_get(rows, k), row_fields, NFIELDS(row_fields), row, inner,
                             sizeof inner) != 0) {
            snprintf(why, why_len, "\"rows\"[%zu]: %s", k, inner);
            return -1;
        }
        row->comm = report_intern(r, row->comm);
        row->op = report_intern(r, row->op);
        row->dtype = report_intern(r, row->dtype);
    }
    return 0;
}

static int load_module(struct report *r, json_t *obj, struct module_entry *m)
{
    json_t *path = json_object_get(obj, "path"), *build_id = json_object_get(obj, "build_id");
    if (!json_is_string(path) || !address(json_object_get(obj, "base"), &m->base) ||
        !address(json_object_get(obj, "start"), &m->start) || !address(json_object_get(obj, "end"), &m->end))
        return -1;
    m->path = report_intern(r, json_string_value(path));
    m->build_id = report_intern(r, json_is_string(build_id) ? json_string_value(build_id) : "");
    return 0;
}

int report_load_callsites(struct report *r, json_t *root, struct rank_file *f, char *why, size_t why_len)
{
    why[0] = '\0';
    json_t *depth = json_object_get(root, "callsite_depth");
    f->callsite_depth = json_is_integer(depth) ? (int)json_integer_value(depth) : 0;
    json_t *unread = json_object_get(root, "callsite_python_unread");
    f->python_unread = json_is_integer(unread) && json_integer_value(unread) > 0 ? (uint64_t)json_integer_value(unread) : 0;
    json_t *sites = optional_array(root, "callsites", why, why_len);
    json_t *modules = optional_array(root, "modules", why, why_len);
    if (why[0])
        return -1;
    f->nsites = json_array_size(sites);
    f->sites = report_alloc(r, f->nsites * sizeof *f->sites);
    for (size_t i = 0; i < f->nsites; i++) {
        char inner[192];
        if (load_site(r, json_array_get(sites, i), &f->sites[i], inner, sizeof inner) != 0) {
            snprintf(why, why_len, "\"callsites\"[%zu]: %s", i, inner);
            return -1;
        }
    }
    f->nmodules = json_array_size(modules);
    f->modules = report_alloc(r, f->nmodules * sizeof *f->modules);
    for (size_t i = 0; i < f->nmodules; i++)
        if (load_module(r, json_array_get(modules, i), &f->modules[i]) != 0) {
            snprintf(why, why_len, "\"modules\"[%zu]: needs \"path\" and \"base\", \"start\", \"end\" "
                     "as \"0x...\"", i);
            return -1;
        }
    return 0;
}
