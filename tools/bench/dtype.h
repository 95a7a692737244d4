/* The data types the bench can run with: command-line name, NCCL enum, size. */
#ifndef NCCLTAP_BENCH_DTYPE_H
#define NCCLTAP_BENCH_DTYPE_H

#include <stddef.h>
#include "abi/nccl_abi.h"

struct dtype_desc {
    const char *name;       /* as given to --dtype and printed in the table */
    ncclDataType_t nccl;
    size_t size;            /* bytes per element */
};

/* NULL when the name is unknown. */
const struct dtype_desc *dtype_find(const char *name);
/* "float|half|..." for the help text. */
const char *dtype_names(void);

#endif
