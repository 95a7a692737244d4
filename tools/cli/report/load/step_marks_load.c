/* A rank file's "steps" (preload/state/step_marks.h): how many steps the
 * program marked with nccltap_step(), and the kept marks' times, for the
 * steps analysis (analyze/steps.h) to split the collectives at. */
#include "load.h"
#include "util.h"

#include <stdio.h>

/* The shim keeps 16,384: more is a damaged file. */
#define STEP_MARKS_MAX 16384

int report_load_step_marks(struct report *r, json_t *root, struct rank_file *f, char *why, size_t why_len)
{
    json_t *s = json_object_get(root, "steps");
    if (!s)
        return 0;  /* no marks, or an older shim */
    json_t *marked = json_object_get(s, "marked"), *marks = json_object_get(s, "marks_ns");
    if (!json_is_object(s) || !json_is_integer(marked) || json_integer_value(marked) < 0 || !json_is_array(marks) ||
        json_array_size(marks) > STEP_MARKS_MAX || json_array_size(marks) > (size_t)json_integer_value(marked)) {
        snprintf(why, why_len, "\"steps\" is not {\"marked\": N, \"marks_ns\": [at most N and %d times]}",
                 STEP_MARKS_MAX);
        return -1;
    }
    f->steps_marked = (uint64_t)json_integer_value(marked);
    f->step_marks = report_alloc(r, (json_array_size(marks) + 1) * sizeof *f->step_marks);
    f->nstep_marks = 0;
    size_t i;
    json_t *v;
    json_array_foreach(marks, i, v) {
        json_int_t t = json_integer_value(v);
        if (!json_is_integer(v) || t <= 0 || (f->nstep_marks && (uint64_t)t < f->step_marks[f->nstep_marks - 1])) {
            snprintf(why, why_len, "\"steps\".marks_ns[%zu] is not a time after the one before it", i);
            return -1;
        }
        f->step_marks[f->nstep_marks++] = (uint64_t)t;
    }
    return 0;
}
