/* What the hot path hands to the reducer: one record per NCCL operation, and
 * for each outermost ncclGroupEnd that closes a group one record per stream
 * it was timed on, then one that closes it. Records are small: each is
 * copied twice per operation. */
#ifndef NCCLTAP_OP_RECORD_H
#define NCCLTAP_OP_RECORD_H

#include <stdint.h>

struct tap_comm;
struct tap_event;

enum tap_record_kind { TAP_REC_OP = 1, TAP_REC_GROUP_STREAM = 2, TAP_REC_GROUP_END = 3 };

/* Flags of an op record. */
#define TAP_OPF_TIMED    0x1  /* ev_start/ev_end hold its own event pair */
#define TAP_OPF_CAPTURED 0x2  /* issued during CUDA graph capture */
#define TAP_OPF_FAILED   0x4  /* NCCL returned an error: nothing was enqueued */
#define TAP_OPF_REPLAY   0x8  /* an execution of a captured op (with CAPTURED and
                                 TIMED): a graph launch, not a call */
#define TAP_OPF_STAMPED  0x10 /* ev_start/ev_end hold its marks (events without
                                 timing): when it started and ended is learnt
                                 by polling them; or, with BETWEEN, it has none */
#define TAP_OPF_BETWEEN  0x20 /* stamped from the marks around it on its stream:
                                 an op of a burst, none of its own */

struct tap_op_rec {
    struct tap_comm *comm;
    uint64_t seq;
    uint64_t count;
    uint64_t bytes;      /* S, nccl-tests convention; 0 if datatype unknown */
    uint64_t enqueue_ns; /* CLOCK_MONOTONIC at the call */
    uint64_t group_id;   /* 0 outside a group */
    void *stream;
    struct tap_event *ev_start, *ev_end;
    uint64_t replay;     /* TAP_OPF_REPLAY: its execution number, from 1 (graph_table.h); else 0 */
    int32_t peer;        /* root or peer, -1 if none */
    int32_t redop;       /* -1 if none */
    int32_t dtype;
    uint32_t tid;
    uint32_t timing_cost_ns; /* host time of recording its two events (timed or marks) */
    uint16_t site;       /* call site id (callsite.h), 0 if none; fits the padding */
    uint8_t op;          /* enum tap_op */
    uint8_t flags;
};

/* Streams a group can be timed on; a group touching more is counted untimed. */
#define TAP_GROUP_MAX_STREAMS 32

/* One per stream a timed group used, just before its TAP_REC_GROUP_END. */
struct tap_group_stream_rec {
    uint64_t group_id;
    void *stream;
    struct tap_event *ev_start, *ev_end;
};

/* Flags of a group record. */
#define TAP_GRPF_TIMED     0x1 /* its streams' records hold timed pairs */
#define TAP_GRPF_SIMULATED 0x2 /* ncclGroupSimulateEnd: nothing ran */
#define TAP_GRPF_FAILED    0x4
#define TAP_GRPF_STAMPED   0x8 /* ... marks */

struct tap_group_end_rec {
    uint64_t group_id;
    uint64_t end_ns;    /* CLOCK_MONOTONIC when ncclGroupEnd returned */
    uint32_t nops;      /* op records that carry this group id */
    uint32_t nstreams;  /* stream records sent before this one */
    uint8_t flags;
};

struct tap_record {
    uint32_t kind; /* enum tap_record_kind */
    union {
        struct tap_op_rec op;
        struct tap_group_stream_rec stream;
        struct tap_group_end_rec group;
    } u;
};

#endif
