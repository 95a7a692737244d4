/* libFuzzer target: the report's reader of JSON-lines per-op logs
 * (ops_log.c), as fuzz_ops_file.c does the binary one. */
#include "fuzz_ops_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_ops run;
    fuzz_ops_begin(&run, data, size, "ops.jsonl");
    report_load_ops_log(&run.r, &run.f, run.path);
    fuzz_ops_end(&run);
    return 0;
}
