/* The library of early_nccl_lib.c. */
#ifndef NCCLTAP_TEST_EARLY_NCCL_H
#define NCCLTAP_TEST_EARLY_NCCL_H

/* AllReduce calls its constructor made. */
extern int early_calls;

#endif
