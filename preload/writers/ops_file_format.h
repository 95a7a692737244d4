/* The per-op file, NCCLTAP_DIR/nccltap-<host>-<pid>.ops: one fixed-size
 * binary record per timed op, written by the shim by default (README,
 * Outputs) and read by `nccltap report` (tools/cli/report/load/ops_file.c),
 * which includes this header too. Native byte order: read on a machine of
 * the same kind (byte_order says which).
 *
 * One record per op whose interval is known: every op stamped with marks
 * or timed (NCCLTAP_TIMING=auto and all), and each execution of a captured
 * op timed under NCCLTAP_GRAPH_TIMING=all.
 *
 * The file is a ring bounded by NCCLTAP_OPS_MAX_MB: a header of
 * TAP_OPS_HEADER_BYTES, then `capacity` record slots. Record number i (from
 * 0, in completion order) is in slot i % capacity; `written` records were
 * written in all, so when written > capacity the oldest written - capacity
 * were overwritten (dropped, and counted so). Records go to the file before
 * the header that counts them.
 *
 * Versions: 1 (88-byte records) had no `replay`; 2 appends it; 3 appends
 * `flags` and the spans of stamped records (version 2's records were all
 * timed); 4 puts the reduction in version 3's `reserved` (0 there: a
 * reader takes version 3's as not recorded); 5 appends the call's profiler
 * tag. A version only appends fields to the record, and record_bytes
 * says its size, so a reader takes an older record's first record_bytes
 * and the rest as 0. */
#ifndef NCCLTAP_OPS_FILE_FORMAT_H
#define NCCLTAP_OPS_FILE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define TAP_OPS_MAGIC "NCCLTAP-OPS"  /* 12 bytes with its NUL */
#define TAP_OPS_VERSION 5
#define TAP_OPS_V1_RECORD_BYTES 88  /* version 1: up to dtype */
#define TAP_OPS_V2_RECORD_BYTES 96  /* version 2: up to replay */
#define TAP_OPS_V4_RECORD_BYTES 112 /* versions 3 and 4: up to redop */

/* Flags of a record (version 3). */
#define TAP_OPS_STAMPED 0x1  /* start and end from marks, to the polls' resolution */
#define TAP_OPS_START_AT_CALL 0x2 /* stamped, its stream idle when called: the start is the
                                     call, the low end of its span (else the span's middle) */
#define TAP_OPS_JOINED 0x4  /* timed (NCCLTAP_TIMING=all) from the end event of the op before it on its
                               stream, its thread's, recorded less than 1 us before this call */
#define TAP_OPS_BYTE_ORDER 0x01020304u
#define TAP_OPS_HEADER_BYTES 4096

struct tap_ops_header {
    char magic[12];
    uint32_t byte_order;    /* TAP_OPS_BYTE_ORDER as the writer stores it */
    uint32_t version;
    uint32_t record_bytes;  /* sizeof(struct tap_ops_record) */
    uint64_t capacity;      /* record slots */
    uint64_t written;       /* records written in all */
    uint64_t lost;          /* records that could not be written (I/O errors) */
    uint32_t nops;          /* names follow: nops op names, then ndtypes */
    uint32_t ndtypes;       /* datatype names, each NUL-terminated */
    char names[];           /* up to TAP_OPS_HEADER_BYTES */
};

struct tap_ops_record {
    uint64_t comm;          /* communicator id */
    uint64_t seq;           /* its number in the communicator, from 0 */
    uint64_t count, bytes;  /* elements, and S */
    uint64_t group;         /* group id, 0 when not grouped */
    uint64_t stream;        /* the CUDA stream handle */
    uint64_t enqueue_ns;    /* CLOCK_MONOTONIC at the call */
    uint64_t start_ns, end_ns;  /* the GPU interval, CLOCK_MONOTONIC */
    int32_t rank, peer;     /* peer: root or peer rank, -1 if none */
    uint32_t tid;
    uint16_t group_ops;     /* ops timed together with it (1: alone) */
    uint8_t op;             /* index into the op names */
    uint8_t dtype;          /* ncclDataType_t: index into the datatype names */
    /* Version 2. 0: a call; N: the Nth execution of the call `seq`
     * captured into a CUDA graph (NCCLTAP_GRAPH_TIMING=all; README, CUDA
     * graphs), whose enqueue_ns is then the graph's launch. */
    uint64_t replay;
    /* Version 3. A stamped record's start is when its stream got to it, its
     * end when it ended, each known to within a span: the width of the
     * interval the polls of its marks allow (saturated at 2^32 - 1 ns). */
    uint32_t flags;
    uint32_t start_span_ns, end_span_ns;
    /* Version 4: ncclRedOp_t, -1 for an op without one (version 3: 0,
     * reserved). */
    int32_t redop;
    /* Version 5: the userProfilerTag of an nccl<Coll>Config call's
     * configuration (NCCL 2.31), a label the program gives its calls (a
     * phase); 0 for none, and for a plain call. */
    uint64_t user_tag;
};
_Static_assert(offsetof(struct tap_ops_record, replay) == TAP_OPS_V1_RECORD_BYTES,
               "version 2 appends to version 1's record");
_Static_assert(offsetof(struct tap_ops_record, flags) == TAP_OPS_V2_RECORD_BYTES,
               "version 3 appends to version 2's record");
_Static_assert(offsetof(struct tap_ops_record, user_tag) == TAP_OPS_V4_RECORD_BYTES,
               "version 5 appends to version 4's record");

#endif
