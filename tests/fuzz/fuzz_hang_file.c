/* libFuzzer target: the report's reader of hang reports (hang_files.c),
 * which the hang analysis indexes by rank. Whatever the bytes, no crash,
 * no leak, and every entry it keeps is within the bounds record_check.c
 * promises: a rank inside its communicator, seqs and sizes in range. */
#include "load.h"
#include "input_limits.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_hangs(const struct report *r)
{
    for (size_t i = 0; i < r->nhangs; i++) {
        const struct hang_file *h = &r->hangs[i];
        if (h->file >= r->nfiles)
            abort();
        for (size_t j = 0; j < h->ncomms; j++) {
            const struct hang_comm *c = &h->comms[j];
            if (c->nranks < 1 || c->nranks > REPORT_MAX_NRANKS || c->rank < 0 || c->rank >= c->nranks ||
                c->issued >= REPORT_MAX_COUNT || c->seq >= REPORT_MAX_COUNT || c->last_done < -1 ||
                c->bytes > REPORT_MAX_OP_BYTES || (c->pending && !c->op))
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The loader reads the hang report beside each rank file. */
    char rank_path[64], hang_path[80];
    snprintf(rank_path, sizeof rank_path, "/tmp/nccltap-fuzz-%d.json", (int)getpid());
    snprintf(hang_path, sizeof hang_path, "/tmp/nccltap-fuzz-%d" HANG_FILE_SUFFIX, (int)getpid());
    FILE *out = fopen(hang_path, "wb");
    if (!out || (size && fwrite(data, size, 1, out) != 1) || fclose(out) != 0)
        abort();
    struct report r;
    memset(&r, 0, sizeof r);
    struct rank_file f;
    memset(&f, 0, sizeof f);
    f.path = rank_path;
    r.files = &f;
    r.nfiles = 1;
    report_load_hangs(&r);
    check_hangs(&r);
    unlink(hang_path);
    report_hangs_free(&r);
    r.files = NULL;
    r.nfiles = 0;
    report_model_free(&r);
    return 0;
}
