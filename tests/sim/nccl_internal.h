/* Internals of the simulated NCCL (libnccl.so.2). */
#ifndef NCCLSIM_NCCL_INTERNAL_H
#define NCCLSIM_NCCL_INTERNAL_H

#include <stdint.h>
#include "abi/nccl_abi.h"
#include "nccl_model.h"

#define SIM_API __attribute__((visibility("default")))

#ifdef NCCLSIM_LEGACY
#define SIM_NCCL_VERSION 21803      /* 2.18.3 */
#define SIM_NCCL_NUM_TYPES 10       /* no fp8 before 2.24 */
#else
#define SIM_NCCL_VERSION 23000      /* 2.30.0 */
#define SIM_NCCL_NUM_TYPES 12
#endif
#define SIM_NCCL_NUM_OPS 5          /* sum prod max min avg; then user ops (nccl_coll.c) */

/* Each ABI function is implemented once, hidden, as sim_<name>;
 * nccl_exports.c gives it its two public names, <name> and p<name>. */
#define NCCLSIM_DECLARE_IMPL(name, params, args, ...) ncclResult_t sim_##name params;
NCCLTAP_NCCL_API(NCCLSIM_DECLARE_IMPL)
#undef NCCLSIM_DECLARE_IMPL
#define NCCLSIM_DECLARE_QUERY_IMPL(ret, name, params, args) ret sim_##name params;
NCCLTAP_NCCL_QUERIES(NCCLSIM_DECLARE_QUERY_IMPL)
#undef NCCLSIM_DECLARE_QUERY_IMPL

struct sim_segment;

struct ncclComm {
    uint64_t id;                 /* the same on every rank */
    int rank, nranks, device;
    struct sim_segment *seg;     /* where the ranks meet at each collective */
    uint64_t next_seq;           /* collectives issued so far */
    uint64_t children;           /* splits and grows of this comm so far */
    uint64_t shrinks;            /* shrinks of this comm so far */
    int nonblocking;             /* config.blocking = 0: ops return ncclInProgress */
    int suspended;               /* ncclCommSuspend until ncclCommResume */
    uint32_t user_ops;           /* ncclRedOpCreatePreMulSum's slots in use, a bit each */
    /* Per function, a bit per size class (the power of two at or below
     * the bytes) already called: NCCLSIM_FIRST_CALL_US. */
    uint64_t called[SIM_FUNC_COUNT];
    /* NCCLSIM_DATA: sends to and receives from each peer so far, [2 * nranks] */
    uint64_t *p2p_seq;
    /* One-sided signals sent to each peer, then awaited from each, [2 * nranks] (nccl_signal.c) */
    uint64_t *signals;
};

#endif
