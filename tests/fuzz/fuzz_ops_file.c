/* libFuzzer target: the report's reader of binary per-op files
 * (ops_file.c), through a file as the report reads one, after a rank file
 * that lists one communicator of 4 ranks. Whatever the bytes, no crash, no
 * leak, no allocation out of proportion to the input, and every event it
 * keeps is in range (record_check.h): what the analyses index by. */
#include "fuzz_ops_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_ops run;
    fuzz_ops_begin(&run, data, size, "ops");
    report_load_ops_file(&run.r, &run.f, run.path);
    fuzz_ops_end(&run);
    return 0;
}
