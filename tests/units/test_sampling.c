/* auto's sample (state/sampling.h): the learning schedule and the aligned
 * period depend on nothing but the seq, the size class and the budget, so
 * every rank times the same calls; the schedule nests in each period. */
#include "state/sampling.h"
#include "test.h"

void test_sampling(void)
{
    /* The aligned period from the nominal model: short ops one in 256,
     * 64 MiB one in 8, 1 GiB every call; a larger budget, a shorter period. */
    CHECK(tap_sample_aligned_shift(3, 1.0) == 8);
    CHECK(tap_sample_aligned_shift(16, 1.0) == 8);
    CHECK(tap_sample_aligned_shift(20, 1.0) == 7);
    CHECK(tap_sample_aligned_shift(26, 1.0) == 3);
    CHECK(tap_sample_aligned_shift(30, 1.0) == 0);
    CHECK(tap_sample_aligned_shift(63, 1.0) == 0);
    CHECK(tap_sample_aligned_shift(3, 100.0) == 1);
    for (unsigned cls = 1; cls < 64; cls++)
        CHECK(tap_sample_aligned_shift(cls, 1.0) <= tap_sample_aligned_shift(cls - 1, 1.0));

    /* Learning: the first 16 calls after the first, then the aligned
     * period; long classes (aligned shift 3 or less) 1,024. */
    CHECK(tap_sample_learn_shift(0, 8) == 0 && tap_sample_learn_shift(15, 8) == 0);
    CHECK(tap_sample_learn_shift(16, 8) == 8 && tap_sample_learn_shift(UINT64_MAX, 8) == 8);
    CHECK(tap_sample_learn_shift(1023, 3) == 0 && tap_sample_learn_shift(1024, 3) == 3);
    CHECK(tap_sample_learn_shift(5, 0) == 0 && tap_sample_learn_shift(1u << 30, 0) == 0);

    /* Nesting: a call in the sample of period 2^(k+1) is in that of 2^k,
     * and each period picks about one call in 2^k. */
    const uint64_t id = 0x5c2adf70a74b75d8ull;
    unsigned picked[9] = {0};
    for (uint64_t seq = 0; seq < 1u << 16; seq++)
        for (unsigned k = 0; k <= 8; k++) {
            bool in = tap_sample_selected(id, seq, k);
            picked[k] += in;
            if (k && in)
                CHECK(tap_sample_selected(id, seq, k - 1));
        }
    for (unsigned k = 0; k <= 8; k++)
        CHECK(picked[k] >= (1u << 16 >> k) * 9 / 10 && picked[k] <= (1u << 16 >> k) * 11 / 10);
}
