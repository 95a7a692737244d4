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
#define TAP_OPF_TIMED    0x1  /* ev_start/ev_end hold its timed events: its own
                                 pair, or with JOINED the end of the op before */
#define TAP_OPF_CAPTURED 0x2  /* issued during CUDA graph capture */
#define TAP_OPF_FAILED   0x4  /* NCCL returned an error: nothing was enqueued */
#define TAP_OPF_REPLAY   0x8  /* an execution of a captured op (with CAPTURED and
                                 TIMED): a graph launch, not a call */
#define TAP_OPF_STAMPED  0x10 /* ev_start/ev_end hold its marks (events without
                                 timing): when it started and ended is learnt
                                 by polling them; or, with BETWEEN, it has none */
#define TAP_OPF_BETWEEN  0x20 /* stamped from the marks around it on its stream:
                                 an op of a burst, none of its own */
#define TAP_OPF_TAGGED   0x40 /* user_tag holds its call's profiler tag */
#define TAP_OPF_JOINED   0x80 /* with TIMED: ev_start is the end event of the op
                                 before it on its stream (NCCLTAP_TIMING=all,
                                 called back to back: intercept.c) */

struct tap_op_rec {
    struct tap_comm *comm;
    uint64_t seq;
    uint64_t count;
    uint64_t bytes;      /* S, nccl-tests convention; 0 if datatype unknown */
    uint64_t enqueue_ns; /* CLOCK_MONOTONIC at the call */
    void *stream;
    struct tap_event *ev_start, *ev_end;
    /* With TAP_OPF_TAGGED, the userProfilerTag of an nccl<Coll>Config
     * call's configuration (NCCL 2.31); else not set (a plain call's hot
     * path stores nothing here): read it with tap_op_user_tag. */
    uint64_t user_tag;
    /* TAP_OPF_REPLAY: its execution number, from 1 (graph_table.h), modulo
     * 2^32 (a graph launched 4 billion times numbers its executions
     * again: a per-op file holds no two so far apart); else not set (the
     * hot path stores nothing): read it with tap_op_replay. */
    uint32_t replay;
    uint32_t group_id;   /* 0 outside a group (intercept.c: 32 bits, past 0 when they wrap) */
    int32_t peer;        /* root or peer, -1 if none */
    int32_t redop;       /* -1 if none; a user reduction's handle is any 31-bit number
                            (real NCCL scrambles it with the communicator's address) */
    uint32_t tid;
    uint32_t timing_cost_ns; /* host time of recording its events (two, timed or marks; one if JOINED) */
    int16_t dtype;       /* ncclDataType_t (a dozen; a value past 16 bits is refused by
                            NCCL, and the op recorded as failed) */
    uint16_t site;       /* call site id (callsite.h), 0 if none */
    uint8_t op;          /* enum tap_op */
    uint8_t flags;
};

/* An op's execution number (a replay of a captured call), 0 for a call. */
static inline uint64_t tap_op_replay(const struct tap_op_rec *op)
{
    return op->flags & TAP_OPF_REPLAY ? op->replay : 0;
}

/* An op's profiler tag, 0 for none. */
static inline uint64_t tap_op_user_tag(const struct tap_op_rec *op)
{
    return op->flags & TAP_OPF_TAGGED ? op->user_tag : 0;
}

/* Streams a group can be timed on; a group touching more is counted untimed. */
#define TAP_GROUP_MAX_STREAMS 32

/* One per stream a timed group used, just before its TAP_REC_GROUP_END. */
struct tap_group_stream_rec {
    uint32_t group_id;
    void *stream;
    struct tap_event *ev_start, *ev_end;
};

/* Flags of a group record. */
#define TAP_GRPF_TIMED     0x1 /* its streams' records hold timed pairs */
#define TAP_GRPF_SIMULATED 0x2 /* ncclGroupSimulateEnd: nothing ran */
#define TAP_GRPF_FAILED    0x4
#define TAP_GRPF_STAMPED   0x8 /* ... marks */

struct tap_group_end_rec {
    uint32_t group_id;
    uint64_t end_ns;    /* CLOCK_MONOTONIC when ncclGroupEnd returned */
    uint32_t nops;      /* op records that carry this group id */
    uint32_t nstreams;  /* stream records sent before this one */
    uint8_t flags;
};

/* 112 bytes: copied into the queue and out of it for every call (16
 * bytes more cost the hot path 2 instructions, issue 7's budget). */
struct tap_record {
    uint32_t kind; /* enum tap_record_kind */
    union {
        struct tap_op_rec op;
        struct tap_group_stream_rec stream;
        struct tap_group_end_rec group;
    } u;
};

_Static_assert(sizeof(struct tap_record) == 112, "a record's size: see above");

#endif
