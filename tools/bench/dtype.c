#include "dtype.h"

#include <string.h>

static const struct dtype_desc dtypes[] = {
    { "float",    ncclFloat32 },
    { "half",     ncclFloat16 },
    { "bfloat16", ncclBfloat16 },
    { "double",   ncclFloat64 },
    { "int8",     ncclInt8 },
    { "uint8",    ncclUint8 },
    { "int32",    ncclInt32 },
    { "uint32",   ncclUint32 },
    { "int64",    ncclInt64 },
    { "uint64",   ncclUint64 },
    { "fp8e4m3",  ncclFloat8e4m3 },
    { "fp8e5m2",  ncclFloat8e5m2 },
};

const struct dtype_desc *dtype_find(const char *name)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return &dtypes[i];
    return NULL;
}

const char *dtype_names(void)
{
    return "float|half|bfloat16|double|int8|uint8|int32|uint32|int64|uint64|fp8e4m3|fp8e5m2";
}
