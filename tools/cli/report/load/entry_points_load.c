/* A rank file's "entry_points" (preload/state/entry_events.h): the
 * process's calls of NCCL's entry points that neither move data nor make
 * or end a communicator (memory, registration, windows, suspend/resume,
 * revoke, PreMulSum), each {"calls": N, "failed": M}, by name. */
#include "load.h"
#include "util.h"

#include <stdio.h>

/* More names than NCCL has: a damaged file. */
#define ENTRY_POINTS_MAX 256

int report_load_entry_points(struct report *r, json_t *root, struct rank_file *f, char *why, size_t why_len)
{
    json_t *e = json_object_get(root, "entry_points");
    if (!e)
        return 0;  /* none called, or an older shim */
    if (!json_is_object(e) || json_object_size(e) > ENTRY_POINTS_MAX) {
        snprintf(why, why_len, "\"entry_points\" is not an object of at most %d entry points", ENTRY_POINTS_MAX);
        return -1;
    }
    f->entry_points = report_alloc(r, (json_object_size(e) + 1) * sizeof *f->entry_points);
    f->nentry_points = 0;
    const char *name;
    json_t *v;
    json_object_foreach(e, name, v) {
        json_t *calls = json_object_get(v, "calls"), *failed = json_object_get(v, "failed");
        if (!json_is_integer(calls) || !json_is_integer(failed) || json_integer_value(calls) < 0 ||
            json_integer_value(failed) < 0 || json_integer_value(failed) > json_integer_value(calls)) {
            snprintf(why, why_len, "\"entry_points\".%.64s is not {\"calls\": N, \"failed\": M <= N}", name);
            return -1;
        }
        f->entry_points[f->nentry_points++] = (struct entry_count){ report_intern(r, name),
                                                                    (uint64_t)json_integer_value(calls),
                                                                    (uint64_t)json_integer_value(failed) };
    }
    return 0;
}
