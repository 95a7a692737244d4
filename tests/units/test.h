/* A minimal unit-test harness: CHECK records a failure and goes on. */
#ifndef NCCLTAP_TEST_H
#define NCCLTAP_TEST_H

#include <stdio.h>

extern int test_failures;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            test_failures++;                                               \
        }                                                                  \
    } while (0)

void test_mpmc(void);
void test_stats(void);
void test_nccl_ops(void);
void test_utf8(void);
void test_out(void);
void test_prom(void);
void test_pair_cost(void);
void test_sampling(void);
void test_steps_online(void);
void test_busy(void);
void test_intervals(void);

#endif
