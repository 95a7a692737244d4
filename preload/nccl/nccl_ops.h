/* What an NCCL operation is: its name, element size, the bytes it moves and
 * its bus-bandwidth factor, by nccl-tests' conventions (doc/PERFORMANCE.md
 * there): S = bytes of the whole array, busbw = S/t x factor. */
#ifndef NCCLTAP_NCCL_OPS_H
#define NCCLTAP_NCCL_OPS_H

#include <stddef.h>
#include <stdint.h>

enum tap_op {
    TAP_OP_ALLREDUCE, TAP_OP_ALLGATHER, TAP_OP_REDUCESCATTER, TAP_OP_BROADCAST,
    TAP_OP_REDUCE, TAP_OP_ALLTOALL, TAP_OP_GATHER, TAP_OP_SCATTER,
    TAP_OP_SEND, TAP_OP_RECV,
    /* One-sided (NCCL 2.29.2): ncclPutSignal, ncclSignal, ncclWaitSignal. */
    TAP_OP_PUTSIGNAL, TAP_OP_SIGNAL, TAP_OP_WAITSIGNAL,
    TAP_OP_COUNT
};

/* The name as NCCL spells it ("AllReduce"; ncclBcast is "Broadcast";
 * the one-sided ops "PutSignal", "Signal", "WaitSignal", NCCL's own). */
const char *tap_op_name(enum tap_op op);

/* The op NCCL spells `name` (tap_op_name's inverse, case-sensitive), or -1
 * for a name that is none: readers of nccltap's files map names back. */
int tap_op_from_name(const char *name);

/* Whether an op is one rank's alone, not a collective: a send or a
 * receive, or a one-sided op. Its seq is not matched across ranks (the
 * ranks' seqs of a communicator need not agree after it), and bandwidth
 * is of one direction, bus factor 1 (nccl-tests' sendrecv). */
static inline int tap_op_is_p2p(int op)
{
    return op == TAP_OP_SEND || op == TAP_OP_RECV || op == TAP_OP_PUTSIGNAL || op == TAP_OP_SIGNAL ||
           op == TAP_OP_WAITSIGNAL;
}

/* Whether a collective has a root, the source or the sink of its data:
 * its ranks end one after another down its pipeline, not together. */
static inline int tap_op_is_rooted(int op)
{
    return op == TAP_OP_BROADCAST || op == TAP_OP_REDUCE || op == TAP_OP_GATHER || op == TAP_OP_SCATTER;
}

/* Bytes per element, 0 for a datatype this build does not know. Inline, as
 * tap_op_bytes: both run on every call. */
static inline unsigned tap_dtype_size(int dtype)
{
    /* Indexed by ncclDataType_t; the fp8 types are 2.24's. */
    static const unsigned char size[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
    return dtype >= 0 && dtype < (int)sizeof size ? size[dtype] : 0;
}

/* "float32", ..., or "unknown(N)" written into buf. */
const char *tap_dtype_name(int dtype, char *buf, size_t len);

/* The ncclDataType_t NCCL's files spell `name` ("float32"), or -1. */
int tap_dtype_from_name(const char *name);

/* A reduction op's name: "sum", "prod", "max", "min", "avg"; "none" for
 * an op without one (-1); "premulsum#N" for a user op of communicator
 * `comm` in its slot N (tap_redop_user_slot), which only
 * ncclRedOpCreatePreMulSum creates (NCCL 2.11+; a slot is reused after
 * ncclRedOpDestroy); "unknown(N)" otherwise. Written into `buf` where it
 * is not a constant. */
const char *tap_redop_name(int redop, const void *comm, char *buf, size_t len);

/* The slot in its communicator `comm` (the application's ncclComm_t) of
 * a user reduction made by ncclRedOpCreatePreMulSum; -1 for a built-in
 * one. NCCL hands one out as ncclNumOps plus its slot scrambled with the
 * communicator's address, so that no handle of one communicator is
 * another's (ncclUserRedOpMangle, since 2.11): a 31-bit hash of the
 * address XORed in, a built-in value and its preimage left alone; the
 * scrambling is its own inverse. */
int tap_redop_user_slot(const void *comm, int redop);

/* S for `count` elements (the count argument NCCL was given) on n ranks;
 * 0 when the datatype is unknown. */
static inline uint64_t tap_op_bytes(enum tap_op op, uint64_t count, int dtype, int nranks)
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

/* busbw / algbw. */
double tap_op_busbw_factor(enum tap_op op, int nranks);

/* Size class: floor(log2(S)), 0 for S <= 1. */
static inline unsigned tap_size_class(uint64_t bytes)
{
    return bytes > 1 ? 63u - (unsigned)__builtin_clzll(bytes) : 0u;
}
#define TAP_SIZE_CLASSES 64

/* "2.30.0" from an NCCL_VERSION_CODE (2.8 and older used X*1000+Y*100+Z). */
const char *tap_nccl_version_str(int code, char *buf, size_t len);

#endif
