/* The data types the bench can run with: the command-line name (nccl-tests'
 * spelling) and NCCL's enum. Sizes are NCCL facts: tap_dtype_size of
 * nccl/nccl_ops.h. */
#ifndef NCCLTAP_BENCH_DTYPE_H
#define NCCLTAP_BENCH_DTYPE_H

#include <stddef.h>
#include "abi/nccl_abi.h"
#include "nccl/nccl_ops.h"

struct dtype_desc {
    const char *name;       /* as given to --dtype and printed in the table */
    ncclDataType_t nccl;
};

/* Bytes per element. */
static inline size_t dtype_size(const struct dtype_desc *d)
{
    return tap_dtype_size((int)d->nccl);
}

/* NULL when the name is unknown. */
const struct dtype_desc *dtype_find(const char *name);
/* "float|half|..." for the help text. */
const char *dtype_names(void);

#endif
