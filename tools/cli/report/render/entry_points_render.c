/* The Entry points section (analyze/entry_points.h, s->entry_points):
 * NCCL's calls that neither move data nor make or end a communicator,
 * each with its calls, refusals and processes; and --json's
 * "entry_points". */
#include "render.h"

#include <stdio.h>

#include "escape.h"
#include "summary.h"

void print_entry_points(const struct report_summary *s, FILE *out)
{
    const struct entry_points *e = &s->entry_points;
    if (!e->n)
        return;
    fputs("\nEntry points: NCCL calls that neither move data nor make or end a communicator\n", out);
    fprintf(out, "  %-28s %12s %10s %10s\n", "function", "calls", "failed", "processes");
    for (size_t i = 0; i < e->n; i++) {
        char name[SHOWN_MAX];  /* a name from the files: shown as the text shows names */
        fprintf(out, "  %-28s %12llu %10llu %10zu\n", shown(e->v[i].name, name), (unsigned long long)e->v[i].calls,
                (unsigned long long)e->v[i].failed, e->v[i].processes);
    }
}

json_t *entry_points_json(const struct report_summary *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->entry_points.n; i++) {
        const struct entry_summary *v = &s->entry_points.v[i];
        json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:I}", "name", v->name, "calls", (json_int_t)v->calls,
                                           "failed", (json_int_t)v->failed, "processes", (json_int_t)v->processes));
    }
    return a;
}
