/* Fatal errors: every failure names the call, the rank and the reason, and
 * ends the process with status 1 (2 for usage errors, see options.h). */
#ifndef NCCLTAP_BENCH_FAIL_H
#define NCCLTAP_BENCH_FAIL_H

#include <stddef.h>

#include "cuda/cuda_driver.h"
#include "abi/nccl_abi.h"

/* Who is speaking: set once per process (rank) and per thread. A negative
 * rank means the supervising parent of --ranks. */
void fail_set_rank(int rank);
void fail_set_thread(int thread);

_Noreturn void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The line bench_die would print (who is speaking, the message, a
 * newline) into line[cap], cut to fit; returns its length. For a message
 * printed later where printf cannot be called (a signal handler). */
size_t fail_format(char *line, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prints like bench_die but returns, for messages that are not fatal. */
void bench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void cu_check(const struct cuda_driver *drv, CUresult r, const char *call);
void nccl_check(ncclResult_t r, const char *call);

/* CU_CHECK(drv, cuStreamSynchronize, (stream)) calls drv->cuStreamSynchronize
 * and dies with the entry point's name when it fails. */
#define CU_CHECK(drv, fn, args) cu_check((drv), (drv)->fn args, #fn)
#define NCCL_CHECK(fn, args) nccl_check(fn args, #fn)

#endif
