#include "nccl/nccl_ops.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const op_names[TAP_OP_COUNT] = {
    "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
    "AlltoAll", "Gather", "Scatter", "Send", "Recv", "PutSignal", "Signal", "WaitSignal"};

/* Indexed by ncclDataType_t (fp8 types since 2.24). */
static const char *const dtype_names[] = {
    "int8", "uint8", "int32", "uint32", "int64", "uint64", "float16",
    "float32", "float64", "bfloat16", "fp8e4m3", "fp8e5m2"};
#define NDTYPES (int)(sizeof dtype_names / sizeof dtype_names[0])

const char *tap_op_name(enum tap_op op) { return op_names[op]; }

int tap_op_from_name(const char *name)
{
    for (int op = 0; op < TAP_OP_COUNT; op++)
        if (strcmp(name, op_names[op]) == 0)
            return op;
    return -1;
}

const char *tap_dtype_name(int dtype, char *buf, size_t len)
{
    if (dtype >= 0 && dtype < NDTYPES)
        return dtype_names[dtype];
    snprintf(buf, len, "unknown(%d)", dtype);
    return buf;
}

int tap_dtype_from_name(const char *name)
{
    for (int t = 0; t < NDTYPES; t++)
        if (strcmp(name, dtype_names[t]) == 0)
            return t;
    return -1;
}

static const char *const redop_names[] = {"sum", "prod", "max", "min", "avg"};
enum { NUM_OPS = sizeof redop_names / sizeof redop_names[0] };

int tap_redop_user_slot(const void *comm, int redop)
{
    if (redop < NUM_OPS)
        return -1;
    uint64_t h = (uint64_t)(uintptr_t)comm;
    h ^= h >> 32;
    h *= 0x9e3779b97f4a7c13ull;  /* Knuth's multiplicative hash */
    h = (h >> 32) & 0x7fffffffull;
    int unscrambled = (int)h ^ redop;
    return (unscrambled < NUM_OPS ? redop : unscrambled) - NUM_OPS;
}

const char *tap_redop_name(int redop, const void *comm, char *buf, size_t len)
{
    if (redop == -1)
        return "none";
    if (redop >= 0 && redop < NUM_OPS)
        return redop_names[redop];
    if (redop >= NUM_OPS)
        snprintf(buf, len, "premulsum#%d", tap_redop_user_slot(comm, redop));
    else
        snprintf(buf, len, "unknown(%d)", redop);
    return buf;
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
