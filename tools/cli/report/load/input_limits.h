/* What one input may make the report hold, and the ranges its fields must
 * be in. The report reads files that anyone able to write to a run's
 * directory may have placed or damaged: a value from a file is used as an
 * array index or an allocation size only once it is checked against these
 * (README, Security). A file past its size limit is skipped with a message
 * naming it; a record out of range is skipped and counted
 * (report.records_rejected). */
#ifndef NCCLTAP_CLI_REPORT_INPUT_LIMITS_H
#define NCCLTAP_CLI_REPORT_INPUT_LIMITS_H

#include <stdint.h>

/* Ranks in one communicator: a million GPUs is beyond any job today. */
#define REPORT_MAX_NRANKS (1 << 20)

/* Thread ids: Linux's PID_MAX_LIMIT (2^22) bounds every pid and tid. */
#define REPORT_MAX_TID (1u << 22)

/* CPUs of one host in a kernel trace (Linux's NR_CPUS is at most 8192). */
#define REPORT_MAX_CPUS 65536u

/* A per-op file or log, read whole into memory (80 bytes an op). The shim
 * writes 256 MiB by default (NCCLTAP_OPS_MAX_MB). */
#define REPORT_MAX_OPS_FILE_BYTES (4ull << 30)

/* A per-rank file or hang report: a few MB each, even with thousands of
 * rows. */
#define REPORT_MAX_DOC_BYTES (1ull << 30)

/* One op's size: no GPU holds 256 TiB. */
#define REPORT_MAX_OP_BYTES (1ull << 48)

/* Sequence numbers, counts of ops and CLOCK_MONOTONIC times in ns (146
 * years): below 2^62, so that differences and signed conversions of them
 * cannot overflow. */
#define REPORT_MAX_COUNT (1ull << 62)

#endif
