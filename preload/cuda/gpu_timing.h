/* GPU timing with CUDA events: the driver, a pool of events per context,
 * and the conversion of event times to CLOCK_MONOTONIC.
 *
 * Threads: the hot path takes events (tap_event_take) and records them;
 * everything else here runs on the reducer thread, except tap_gpu_init and
 * pool creation, which run once per context on a cold path. */
#ifndef NCCLTAP_GPU_TIMING_H
#define NCCLTAP_GPU_TIMING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda/cuda_driver.h"

struct event_pool;

struct tap_event {
    CUevent ev;
    struct event_pool *pool;
    bool timed;   /* CU_EVENT_DEFAULT; else a mark (CU_EVENT_DISABLE_TIMING):
                   * it says when the stream got there only by being polled */
    /* Who holds it while taken: 1, or 2 while the end of one op is also
     * kept as the start of the next (intercept.c, joined). The last to
     * give it back returns it to the pool. */
    _Atomic uint32_t holders;
};

extern struct cuda_driver tap_cu;

/* Loads the driver once. False, with the reason in tap_gpu_note(), when
 * events cannot be used: the shim then counts without timing. */
bool tap_gpu_init(void);
bool tap_gpu_ready(void);
const char *tap_gpu_note(void);

/* Host cost of recording one start/end pair, measured at the first pool. */
uint64_t tap_event_pair_cost_ns(void);

/* The pool for the context that owns `stream` (NULL: the current context's
 * default stream); created on first use. NULL if the context is unknown.
 * Hot path: a thread-local cache makes the common case one comparison. */
struct event_pool *tap_pool_of_stream(void *stream);

/* Precreates the pool of the current context (cold path, at comm init). */
void tap_pool_of_current_context(void);

/* Cold path: makes the current context's pool hold at least `n` events of
 * the kind, created now (bounded by NCCLTAP_MAX_INFLIGHT): for work that
 * will take them faster than the reducer grows the pool (a CUDA graph
 * launched back to back, each launch taking a pair per timed op). */
void tap_pool_reserve(bool timed, uint32_t n);

/* Hot path: an event of the kind (timed, or a mark) from the pool, or NULL
 * when none is free (the pool asks the reducer to grow, up to
 * NCCLTAP_MAX_INFLIGHT events of each kind). */
struct tap_event *tap_event_take(struct event_pool *p, bool timed);
void tap_event_give(struct tap_event *e);
/* A second holder of a taken event, which only one holds: each gives it
 * back once. Hot path. */
void tap_event_share(struct tap_event *e);

/* Whether `stream` is being captured into a CUDA graph. */
bool tap_stream_capturing(void *stream);

/* While `stream` is being captured: the capture's id (unique in the
 * process) and the graph it builds. False when it is not, or the driver
 * cannot say (no cuStreamGetCaptureInfo_v2: before CUDA 11.3). */
bool tap_stream_capture_graph(void *stream, uint64_t *capture_id, void **graph);

/* While `stream` is being captured: records `e` on it as an external
 * event (CU_EVENT_RECORD_EXTERNAL), which adds an event-record node, and returns that node (CUgraphNode);
 * NULL when either fails. */
void *tap_capture_event_node(struct tap_event *e, void *stream);

/* The calling thread's stream-capture mode (CU_STREAM_CAPTURE_MODE_*) set
 * to `mode`; returns the one it had, -1 when the driver cannot say. A
 * thread in the global mode (every thread's default) that synchronizes or
 * queries while any thread's global-mode capture is active (PyTorch's, by
 * default) invalidates that capture: nccltap's own threads run relaxed,
 * as NCCL's do. Any thread. */
int tap_capture_mode_exchange(int mode);

/* Reducer: grows pools that ran dry; recalibrates every context's clock. */
void tap_pools_grow(void);
void tap_pools_calibrate(void);

/* How far an event's CLOCK_MONOTONIC time may be from the true one, from
 * its context's calibration (gpu_timing.c, calibrate): half the widest
 * window of a calibration made so far, the largest over the process's
 * contexts; 0 before any. A constant error of a process's times, which
 * aligning its clock with another's from the ends of collectives takes
 * for a clock offset: the report adds it to the offset's error. Any
 * thread. */
uint64_t tap_clock_calibration_error_ns(void);

/* Reducer (and the hot path while `auto` learns): CUDA_SUCCESS when the event has completed, CUDA_ERROR_NOT_READY
 * while it has not, another code when it never will (context destroyed). */
CUresult tap_event_query(const struct tap_event *e);
/* Reducer: the completed event's time in CLOCK_MONOTONIC ns; false if the
 * driver cannot say. */
bool tap_event_time_ns(const struct tap_event *e, uint64_t *ns);
/* Reducer: end - start in ns, from cuEventElapsedTime (both in one context). */
bool tap_event_elapsed_ns(const struct tap_event *start, const struct tap_event *end, uint64_t *ns);

/* "GPU-xxxxxxxx-xxxx-..." as nvidia-smi prints it, or "" if unknown. */
void tap_gpu_uuid(int device, char *out, size_t len);

/* In a forked child: CUDA cannot be used there if the parent initialized it. */
void tap_gpu_after_fork(void);

#endif
