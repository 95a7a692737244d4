/* `nccltap report --perfetto OUT.json [--from S] [--to S] [--ranks LIST]`:
 * the timeline (report_analyze's), written whole or not at all
 * (report_file.h). */
#include "report_file.h"
#include "perfetto_cmd.h"
#include "render.h"
#include "timeline.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

int parse_rank_list(const char *s, int **ranks, size_t *n)
{
    *ranks = NULL;
    *n = 0;
    while (*s) {
        char *end;
        long lo = strtol(s, &end, 10), hi = lo;
        if (end == s || lo < 0)
            goto bad;
        if (*end == '-') {
            s = end + 1;
            hi = strtol(s, &end, 10);
            if (end == s || hi < lo || hi - lo > 1 << 20)
                goto bad;
        }
        for (long r = lo; r <= hi; r++) {
            *ranks = xrealloc(*ranks, (*n + 1) * sizeof **ranks);
            (*ranks)[(*n)++] = (int)r;
        }
        if (*end == ',')
            end++;
        else if (*end)
            goto bad;
        s = end;
    }
    if (*n)
        return 0;
bad:
    free(*ranks);
    *ranks = NULL;
    *n = 0;
    return -1;
}

/* What out_file_write hands the writer. */
struct perfetto_ctx {
    const struct report *r;
    const struct timeline *t;
};

static int write_perfetto(FILE *out, void *ctx)
{
    const struct perfetto_ctx *c = ctx;
    return report_write_perfetto(c->r, c->t, out);
}

int report_perfetto(const struct report *r, const struct timeline *t, const char *path)
{
    struct perfetto_ctx ctx = { r, t };
    int rc = out_file_write(path, write_perfetto, &ctx);
    if (rc == 0)
        msg("Perfetto trace in %s: %zu events (open it in ui.perfetto.dev or chrome://tracing)",
            path, t->nevents);
    return rc;
}
