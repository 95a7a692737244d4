/* libFuzzer target: the report's reader of nccltap-bench's results
 * (bench_files.c), whose rows the bandwidth charts draw. Whatever the
 * bytes, no crash, no leak, and every row it keeps has a name, a size in
 * range and a finite, positive busbw. */
#include "load.h"
#include "input_limits.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The loader reads bench-<run>.rank<R>.json beside the run's rank files. */
    char rank_path[80], bench_path[80];
    snprintf(rank_path, sizeof rank_path, "/tmp/nccltap-fuzz%d@h-1.json", (int)getpid());
    snprintf(bench_path, sizeof bench_path, "/tmp/bench-fuzz%d.rank0.json", (int)getpid());
    FILE *out = fopen(bench_path, "wb");
    if (!out || (size && fwrite(data, size, 1, out) != 1) || fclose(out) != 0)
        abort();
    struct report r;
    memset(&r, 0, sizeof r);
    struct rank_file f;
    memset(&f, 0, sizeof f);
    f.path = rank_path;
    r.files = &f;
    r.nfiles = 1;
    report_load_bench(&r);
    for (size_t i = 0; i < r.nbench; i++) {
        const struct bench_row *b = &r.bench[i];
        if (!b->op || b->bytes == 0 || b->bytes > REPORT_MAX_OP_BYTES || !isfinite(b->busbw_gbs) ||
            b->busbw_gbs <= 0 || b->rank < 0 || b->rank >= REPORT_MAX_NRANKS)
            abort();
    }
    unlink(bench_path);
    free(r.bench);
    r.files = NULL;
    r.nfiles = 0;
    report_model_free(&r);
    return 0;
}
