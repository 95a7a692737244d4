/* The operations the bench runs: what each one is called on the command
 * line and in the table, how a size maps to NCCL's count argument, how
 * nccl-tests lays out the buffers, and the NCCL call itself. The NCCL facts
 * (function names, bytes per call, bus-bandwidth factors) are the shim's,
 * from nccl/nccl_ops.h: each op maps to the enum tap_op of the NCCL
 * functions it calls. */
#ifndef NCCLTAP_BENCH_OPS_H
#define NCCLTAP_BENCH_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include "abi/nccl_abi.h"
#include "nccl/nccl_ops.h"

enum bench_op {
    OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER, OP_BROADCAST, OP_REDUCE,
    OP_ALLTOALL, OP_GATHER, OP_SCATTER, OP_SENDRECV,
    OP_COUNT
};

struct op_desc {
    const char *cli;        /* --op name */
    /* The NCCL functions one call of the op makes, one JSON row each (named
     * by tap_op_name, as the shim names them): sendrecv calls ncclSend and
     * ncclRecv, every other op its one function. */
    enum tap_op fns[2];
    int nfns;
};

const struct op_desc *op_desc(enum bench_op op);
/* The op named `cli`, or -1. */
int op_find(const char *cli);
/* The table's name: NCCL's for a collective, "SendRecv" for the pair. */
const char *op_label(enum bench_op op);

/* NCCL's count argument for an nccl-tests size S (bytes of the whole array)
 * on n ranks; 0 when S is too small for one element. */
size_t op_count(enum bench_op op, size_t s, ncclDataType_t dtype, int n);
/* The size S that `count` stands for (S rounded down to what is moved). */
size_t op_bytes(enum bench_op op, size_t count, ncclDataType_t dtype, int n);
/* busbw = algbw * factor, as nccl-tests computes it. */
double op_busbw_factor(enum bench_op op, int n);

/* nccl-tests' redop and root columns: "sum" for the reductions (the bench
 * reduces with ncclSum), else "none"; whether the op has a root (else the
 * column says -1). */
bool op_reduces(enum bench_op op);
bool op_rooted(enum bench_op op);

/* The buffers of one call, in elements of the data type, as nccl-tests
 * lays them out: what the rank sends and receives and, in place, where
 * each lies in the one (receive) buffer. In place, AllGather and Gather
 * send from the rank's block of the receive buffer, ReduceScatter and
 * Scatter receive into it; every other op sends and receives at its start
 * (sendbuff == recvbuff). */
struct op_layout {
    size_t send_elems;
    size_t recv_elems;
    size_t send_off;        /* in place: offset of the send buffer; else 0 */
    size_t recv_off;        /* in place: offset of the receive buffer; else 0 */
    size_t extent;          /* in place: elements of the buffer in use */
};

void op_layout(enum bench_op op, size_t count, int rank, int n, bool in_place,
               struct op_layout *l);

/* False when the NCCL in use lacks the op's entry point (AlltoAll, Gather
 * and Scatter appeared in 2.28); `fn` gets the missing function's name. */
bool op_available(enum bench_op op, const char **fn);

/* Everything one call needs. */
struct op_call {
    const void *send;
    void *recv;
    size_t count;
    ncclDataType_t dtype;
    int root;
    int rank;
    int nranks;
    ncclComm_t comm;
    cudaStream_t stream;
};

/* Enqueues one call of the op (for sendrecv: a ncclSend to the next rank and
 * a ncclRecv from the previous one, which the caller must put in a group).
 * Dies on error. */
void op_issue(enum bench_op op, const struct op_call *c);

#endif
