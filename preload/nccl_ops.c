#include "nccl_ops.h"

#include <stdio.h>

static const char *const op_names[TAP_OP_COUNT] = {
    "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
    "AlltoAll", "Gather", "Scatter", "Send", "Recv"};

/* Indexed by ncclDataType_t (2.24 numbering; fp8 types since 2.24). */
static const struct { const char *name; unsigned size; } dtypes[] = {
    {"int8", 1}, {"uint8", 1}, {"int32", 4}, {"uint32", 4}, {"int64", 8},
    {"uint64", 8}, {"float16", 2}, {"float32", 4}, {"float64", 8},
    {"bfloat16", 2}, {"fp8e4m3", 1}, {"fp8e5m2", 1}};
#define NDTYPES (int)(sizeof dtypes / sizeof dtypes[0])

const char *tap_op_name(enum tap_op op) { return op_names[op]; }

unsigned tap_dtype_size(int dtype)
{
    return dtype >= 0 && dtype < NDTYPES ? dtypes[dtype].size : 0;
}

const char *tap_dtype_name(int dtype, char *buf, size_t len)
{
    if (dtype >= 0 && dtype < NDTYPES)
        return dtypes[dtype].name;
    snprintf(buf, len, "unknown(%d)", dtype);
    return buf;
}

uint64_t tap_op_bytes(enum tap_op op, uint64_t count, int dtype, int nranks)
{
    uint64_t per_rank = count * tap_dtype_size(dtype);
    switch (op) {
    case TAP_OP_ALLGATHER:     /* count is sendcount */
    case TAP_OP_REDUCESCATTER: /* count is recvcount */
    case TAP_OP_ALLTOALL:
    case TAP_OP_GATHER:
    case TAP_OP_SCATTER:
        return per_rank * (uint64_t)(nranks > 0 ? nranks : 1);
    default:
        return per_rank;
    }
}

double tap_op_busbw_factor(enum tap_op op, int nranks)
{
    double n = nranks > 0 ? nranks : 1;
    switch (op) {
    case TAP_OP_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case TAP_OP_ALLGATHER:
    case TAP_OP_REDUCESCATTER:
    case TAP_OP_ALLTOALL:
    case TAP_OP_GATHER:
    case TAP_OP_SCATTER:
        return (n - 1) / n;
    default:
        return 1.0;
    }
}

const char *tap_nccl_version_str(int code, char *buf, size_t len)
{
    if (code <= 0)
        snprintf(buf, len, "unknown");
    else if (code < 10000)
        snprintf(buf, len, "%d.%d.%d", code / 1000, code / 100 % 10, code % 100);
    else
        snprintf(buf, len, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
    return buf;
}
