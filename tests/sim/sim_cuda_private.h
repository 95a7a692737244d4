/* The simulated driver's private interface to the simulated NCCL.
 *
 * libcuda.so.1 (simulated) exports these next to the real driver API; the
 * real driver has none of them, so only the simulated NCCL may call them.
 *
 * A stream is a FIFO of work. Each item begins at its *local start*,
 * max(end of the work before it, host time when it was enqueued) + delay,
 * unless it has a gate: then the gate decides when it begins (for a
 * collective: when the last rank arrives). Items whose beginning is not
 * known yet stay queued, and events recorded behind them stay pending,
 * until their gate says so; the driver asks the gates again whenever an
 * event or stream is queried or synchronized, whenever gated work is
 * enqueued (it may be the arrival others wait for), and from a progress
 * thread of its own, since the ranks being waited for may be in other
 * processes. */
#ifndef NCCLSIM_CUDA_PRIVATE_H
#define NCCLSIM_CUDA_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include "abi/cuda_abi.h"

/* Decides when a gated item begins. `local_start_ns` is when this stream
 * could begin it; the same value on every call. Returns 1 and sets
 * *start_ns (>= local_start_ns) once known, 0 while not yet. Called with
 * the driver's lock held, from any thread: it must not call the driver, and
 * must be quick. */
typedef int (*ncclsim_gate_fn)(void *arg, uint64_t local_start_ns, uint64_t *start_ns);

/* Frees `arg`; called exactly once per enqueued item, when it has begun (or
 * at once, when the item is not queued: capturing stream, error). Same
 * rules as the gate. */
typedef void (*ncclsim_release_fn)(void *arg);

struct ncclsim_work {
    uint64_t duration_ns;        /* the item ends at its start + this */
    uint64_t delay_ns;           /* added to the local start (a late rank) */
    int before_last_event;       /* goes in front of the event recorded last on
                                    the stream, when nothing was queued after it
                                    (a profiler's start event for the op that
                                    follows): see README, Knobs */
    ncclsim_gate_fn gate;        /* NULL: begins at its local start */
    ncclsim_release_fn release;  /* may be NULL */
    void *arg;
};

/* In every call below, `stream` may be a stream handle, or 0 (and the
 * cudart handles cudaStreamLegacy, cudaStreamPerThread): the default stream
 * of `device`'s primary context, or of the current context when device is
 * negative. The driver is initialized on first use, as NCCL's own runtime
 * calls would. */

/* Device of the calling thread's current context; -1 when it has none. */
int ncclsim_current_device(void);

/* NCCLSIM_NDEV. */
int ncclsim_device_count(void);

/* 1 while `stream` is being captured, 0 if not, -1 if it names no stream
 * (no current context). Work enqueued while capturing is dropped: a caller
 * that wants it to run at each graph launch captures a node instead. */
int ncclsim_stream_capturing(CUstream stream, int device);

/* What a captured operation does at each launch of its graph: `replay`
 * puts it on `stream` (the launch's) by the calls above, as if it were
 * issued then. Called without the driver's lock, on the launching thread,
 * in the graph's order. `release` frees `arg` when the last graph or
 * executable graph holding the node is destroyed (may be NULL). */
typedef void (*ncclsim_replay_fn)(void *arg, CUstream stream);
struct ncclsim_node {
    ncclsim_replay_fn replay;
    ncclsim_release_fn release;
    void *arg;
};

/* Appends `node` (copied) to the graph `stream` is capturing. CUDA_SUCCESS;
 * otherwise (not capturing: 401, no stream: CUDA_ERROR_INVALID_CONTEXT)
 * `release` has been called. */
CUresult ncclsim_stream_capture(CUstream stream, int device, const struct ncclsim_node *node);

/* Queues `work` (copied) on `stream`. CUDA_SUCCESS, or
 * CUDA_ERROR_INVALID_CONTEXT when `stream` names no stream. */
CUresult ncclsim_stream_enqueue(CUstream stream, int device, const struct ncclsim_work *work);

#endif
