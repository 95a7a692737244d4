#include "test.h"

int test_failures;

int main(void)
{
    test_mpmc();
    test_stats();
    test_nccl_ops();
    test_utf8();
    test_out();
    test_prom();
    test_pair_cost();
    test_sampling();
    test_steps_online();
    test_busy();
    test_intervals();
    printf("%s: %d failed checks\n", test_failures ? "FAIL" : "ok", test_failures);
    return test_failures != 0;
}
