/* Helpers for the test applications: plain NCCL and CUDA driver calls,
 * checked, as an application would make them. */
#ifndef NCCLTAP_TEST_NCCL_APP_H
#define NCCLTAP_TEST_NCCL_APP_H

#include <stdio.h>
#include <stdlib.h>

#include "abi/nccl_abi.h"
#include "cuda/cuda_driver.h"

extern struct cuda_driver cu;

#define CHECK_NCCL(call)                                                            \
    do {                                                                            \
        ncclResult_t r_ = (call);                                                   \
        if (r_ != ncclSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, r_); \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

#define CHECK_CU(call)                                                              \
    do {                                                                            \
        CUresult r_ = (call);                                                       \
        if (r_ != CUDA_SUCCESS) {                                                   \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, r_); \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

/* Loads the driver; exits on failure. */
void app_cuda_init(void);
/* Makes device `dev`'s primary context current on this thread and returns
 * a new stream in it. */
CUstream app_stream_on(int dev);
/* A device buffer of `bytes`. */
void *app_buffer(size_t bytes);

#endif
