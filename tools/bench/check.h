/* --check: the data check of nccl-tests. Before one more call of the op
 * (after its timed calls), every rank fills what it sends with values that
 * depend on its rank and the element's index, and what it receives with a
 * pattern no result has (all bytes 0xFF); after it, the rank reads its
 * result back and counts the elements that differ from what the op must
 * give. Values are small integers, exact in every type: sums over the
 * ranks stay below the largest integer up to which the type counts exactly
 * (fp8e5m2 8, fp8e4m3 16, bfloat16 256, half 2048, int8 127, uint8 254,
 * others 2^20), so the result does not depend on the order NCCL adds in.
 * (With more ranks than that limit, a reduction's values are all 0: the
 * check still sees data that did not arrive, not data that is misplaced.) */
#ifndef NCCLTAP_BENCH_CHECK_H
#define NCCLTAP_BENCH_CHECK_H

#include "worker_ctx.h"

/* Resolves the driver's copies (cuMemcpyHtoD_v2, cuMemcpyDtoH_v2) and reads
 * NCCLTAP_BENCH_CORRUPT. Dies when the driver lacks the copies. */
void check_init(struct rank_ctx *rk);

/* Checks variant `variant` of the op at `count` with one call on this
 * thread's communicator. Returns the wrong elements of this thread's
 * result (0 where the rank receives nothing: Reduce and Gather off the
 * root). NCCLTAP_BENCH_CORRUPT=R (a test of the check itself): rank R
 * flips a bit of its result's first element after the call. */
long long check_step(struct worker *w, enum bench_op op, size_t count, int variant);

#endif
