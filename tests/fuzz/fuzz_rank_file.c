/* libFuzzer target: the report's reader of per-rank files (rank_parse.c),
 * fed in two pieces as a file is read, through the fill (rank_fill.c) and
 * the loaders of the members it keeps as JSON (callsite_load.c,
 * nccl_env.c, os_records.c), then the merge of its rows (merge.c), which
 * indexes by histogram bucket. Whatever the bytes, no crash, no leak, and a file that
 * is accepted holds only what the model promises. */
#include "load.h"
#include "merge.h"
#include "rank_fill.h"
#include "rank_parse.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_file(const struct rank_file *f)
{
    for (size_t i = 0; i < f->nops; i++) {
        const struct op_row *row = &f->ops[i];
        if (!row->comm || !row->op || !row->dtype || !row->comm_name)
            abort();
        for (size_t j = 0; j < row->nhist; j++)
            if (row->hist[j].bucket < 0 || row->hist[j].bucket >= REPORT_HIST_BUCKETS)
                abort();
    }
    for (size_t i = 0; i < f->ncomms; i++)
        if (!f->comms[i].id || !f->comms[i].name || !f->comms[i].parent)
            abort();
    if (!f->host || !f->job || !f->nccl_version || !f->timing || !f->timing_note)
        abort();
    /* The shim's records: each switch names its thread (the other side
     * "", never NULL), in time order. */
    const struct kernel_trace *k = f->os;
    for (size_t i = 0; k && i < k->nswitches; i++) {
        const struct sched_switch *s = &k->switches[i];
        if (!s->prev_comm || !s->next_comm || (i && s->ts_ns < k->switches[i - 1].ts_ns) ||
            s->cpu >= k->ncpus)
            abort();
    }
    for (size_t i = 0; k && i < k->nthreads; i++)
        if (!k->threads[i].comm || k->threads[i].tid <= 0)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct report r;
    memset(&r, 0, sizeof r);
    struct rank_file f;
    memset(&f, 0, sizeof f);
    f.path = xstrdup("fuzz.json");
    struct rank_parser *p = rank_parser_new(&r, &f);
    size_t cut = size / 3;
    char why[256];
    int rc = rank_parser_feed(p, data, cut);
    if (rc == 0)
        rc = rank_parser_feed(p, data + cut, size - cut);
    rc = rank_parser_finish(p, why, sizeof why);
    if (rc == 0) {
        check_file(&f);
        /* The file as a run of its own: merge its rows as the report does. */
        r.files = &f;
        r.nfiles = 1;
        for (size_t i = 0; i < f.nops; i++)
            f.ops[i].file = &f;
        size_t n;
        const struct op_row **rows = report_rows(&r, &n);
        for (size_t i = 0; i < n;) {
            size_t j = i + 1;
            while (j < n && op_row_same_key(rows[i], rows[j]))
                j++;
            struct op_merged m;
            op_merge(rows + i, j - i, &m);
            i = j;
        }
        free(rows);
        free(report_comms(&r, &n));
        r.files = NULL;
        r.nfiles = 0;
    }
    rank_parser_free(p);
    rank_file_free(&f);
    report_model_free(&r);
    return 0;
}
