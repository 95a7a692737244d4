/* A test program's ncclCollConfig_t as NCCL_COLLCONFIG_INITIALIZER of
 * NCCL 2.31's nccl.h fills it, with a profiler tag; `size` as a program
 * built against that header sets it (sizeof the struct). */
#ifndef NCCLTAP_TEST_COLL_CONFIG_H
#define NCCLTAP_TEST_COLL_CONFIG_H

#include <limits.h>
#include <stddef.h>

#include "abi/nccl_abi.h"

static inline ncclCollConfig_t app_coll_config(unsigned long long tag, size_t size)
{
    return (ncclCollConfig_t){ .size = size, .magic = 0xcafebeef, .version = 23100, .minCTAs = INT_MIN,
                               .maxCTAs = INT_MIN, .nvlsCTAs = INT_MIN, .cgaClusterSize = INT_MIN,
                               .forceAlgSelection = 1, .CTAPolicy = INT_MIN, .userProfilerTag = tag };
}

#endif
