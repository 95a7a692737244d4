#include "ops.h"

#include <stdint.h>
#include <string.h>
#include "fail.h"

/* Since NCCL 2.28 only: referenced weakly so that the bench still loads on
 * an older libnccl.so.2 and can say which function is missing, instead of
 * dying in the dynamic linker at the first call. */
#pragma weak ncclAlltoAll
#pragma weak ncclGather
#pragma weak ncclScatter

static const struct op_desc descs[OP_COUNT] = {
    [OP_ALLREDUCE]     = { "allreduce",     { TAP_OP_ALLREDUCE }, 1 },
    [OP_ALLGATHER]     = { "allgather",     { TAP_OP_ALLGATHER }, 1 },
    [OP_REDUCESCATTER] = { "reducescatter", { TAP_OP_REDUCESCATTER }, 1 },
    [OP_BROADCAST]     = { "broadcast",     { TAP_OP_BROADCAST }, 1 },
    [OP_REDUCE]        = { "reduce",        { TAP_OP_REDUCE }, 1 },
    [OP_ALLTOALL]      = { "alltoall",      { TAP_OP_ALLTOALL }, 1 },
    [OP_GATHER]        = { "gather",        { TAP_OP_GATHER }, 1 },
    [OP_SCATTER]       = { "scatter",       { TAP_OP_SCATTER }, 1 },
    [OP_SENDRECV]      = { "sendrecv",      { TAP_OP_SEND, TAP_OP_RECV }, 2 },
};

const struct op_desc *op_desc(enum bench_op op)
{
    return &descs[op];
}

int op_find(const char *cli)
{
    for (int i = 0; i < OP_COUNT; i++)
        if (strcmp(descs[i].cli, cli) == 0)
            return i;
    return -1;
}

const char *op_label(enum bench_op op)
{
    return op == OP_SENDRECV ? "SendRecv" : tap_op_name(descs[op].fns[0]);
}

/* The inverse of tap_op_bytes: a count of 1 stands for tap_op_bytes(op, 1)
 * bytes, so S holds S / that many counts. The pair's Send and Recv move the
 * same bytes, so its first function stands for the op. */
size_t op_count(enum bench_op op, size_t s, ncclDataType_t dtype, int n)
{
    uint64_t per_count = tap_op_bytes(descs[op].fns[0], 1, (int)dtype, n);
    return per_count ? (size_t)(s / per_count) : 0;
}

size_t op_bytes(enum bench_op op, size_t count, ncclDataType_t dtype, int n)
{
    return (size_t)tap_op_bytes(descs[op].fns[0], count, (int)dtype, n);
}

double op_busbw_factor(enum bench_op op, int n)
{
    return tap_op_busbw_factor(descs[op].fns[0], n);
}

bool op_reduces(enum bench_op op)
{
    return op == OP_ALLREDUCE || op == OP_REDUCESCATTER || op == OP_REDUCE;
}

bool op_rooted(enum bench_op op)
{
    return op == OP_BROADCAST || op == OP_REDUCE || op == OP_GATHER || op == OP_SCATTER;
}

void op_layout(enum bench_op op, size_t count, int rank, int n, bool in_place,
               struct op_layout *l)
{
    size_t all = count * (size_t)n, mine = count * (size_t)rank;
    l->send_elems = l->recv_elems = count;
    l->send_off = l->recv_off = 0;
    switch (op) {
    case OP_ALLGATHER: case OP_GATHER:
        l->recv_elems = all;
        l->send_off = mine;
        break;
    case OP_REDUCESCATTER: case OP_SCATTER:
        l->send_elems = all;
        l->recv_off = mine;
        break;
    case OP_ALLTOALL:
        l->send_elems = l->recv_elems = all;
        break;
    default:
        break;
    }
    l->extent = l->send_elems > l->recv_elems ? l->send_elems : l->recv_elems;
    if (!in_place)
        l->send_off = l->recv_off = 0;
}

/* The symbol alone does not say the library has the function: an
 * interposer (nccltap itself) may define it over an older NCCL. So the
 * version must say so too. */
static bool since_2_28(void)
{
    int v = 0;
    return ncclGetVersion(&v) == ncclSuccess && v >= 22800;
}

bool op_available(enum bench_op op, const char **fn)
{
    switch (op) {
    case OP_ALLTOALL: *fn = "ncclAlltoAll"; return ncclAlltoAll != NULL && since_2_28();
    case OP_GATHER:   *fn = "ncclGather";   return ncclGather != NULL && since_2_28();
    case OP_SCATTER:  *fn = "ncclScatter";  return ncclScatter != NULL && since_2_28();
    default:          *fn = NULL;           return true;
    }
}

void op_issue(enum bench_op op, const struct op_call *c)
{
    switch (op) {
    case OP_ALLREDUCE:
        NCCL_CHECK(ncclAllReduce, (c->send, c->recv, c->count, c->dtype, ncclSum, c->comm, c->stream));
        break;
    case OP_ALLGATHER:
        NCCL_CHECK(ncclAllGather, (c->send, c->recv, c->count, c->dtype, c->comm, c->stream));
        break;
    case OP_REDUCESCATTER:
        NCCL_CHECK(ncclReduceScatter, (c->send, c->recv, c->count, c->dtype, ncclSum, c->comm, c->stream));
        break;
    case OP_BROADCAST:
        NCCL_CHECK(ncclBroadcast, (c->send, c->recv, c->count, c->dtype, c->root, c->comm, c->stream));
        break;
    case OP_REDUCE:
        NCCL_CHECK(ncclReduce, (c->send, c->recv, c->count, c->dtype, ncclSum, c->root, c->comm, c->stream));
        break;
    case OP_ALLTOALL:
        NCCL_CHECK(ncclAlltoAll, (c->send, c->recv, c->count, c->dtype, c->comm, c->stream));
        break;
    case OP_GATHER:
        NCCL_CHECK(ncclGather, (c->send, c->recv, c->count, c->dtype, c->root, c->comm, c->stream));
        break;
    case OP_SCATTER:
        NCCL_CHECK(ncclScatter, (c->send, c->recv, c->count, c->dtype, c->root, c->comm, c->stream));
        break;
    case OP_SENDRECV: {
        /* A ring: every rank sends to the next and receives from the
         * previous, so each rank moves S bytes each way per call. */
        int next = (c->rank + 1) % c->nranks;
        int prev = (c->rank - 1 + c->nranks) % c->nranks;
        NCCL_CHECK(ncclSend, (c->send, c->count, c->dtype, next, c->comm, c->stream));
        NCCL_CHECK(ncclRecv, (c->recv, c->count, c->dtype, prev, c->comm, c->stream));
        break;
    }
    case OP_COUNT:
        break;
    }
}
