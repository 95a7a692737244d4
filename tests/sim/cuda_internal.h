/* Internals of the simulated CUDA driver (libcuda.so.1).
 *
 * One lock (sim_lock) guards every stream, event and queue: this is a test
 * double, and one lock makes the lazy resolution of queued work (which
 * touches a stream, the events behind its work, and the progress list at
 * once) easy to get right. Nothing sleeps while holding it. */
#ifndef NCCLSIM_CUDA_INTERNAL_H
#define NCCLSIM_CUDA_INTERNAL_H

#include <stdint.h>
#include "abi/cuda_abi.h"
#include "cuda_exports.h"
#include "sim_cuda_private.h"

#define SIM_API __attribute__((visibility("default")))

/* Result codes the driver returns that nccltap's ABI header does not name. */
#define SIM_CUDA_ERROR_OUT_OF_MEMORY 2
#define SIM_CUDA_ERROR_INVALID_DEVICE 101
#define SIM_CUDA_ERROR_ILLEGAL_STATE 401
#define SIM_CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED 900
#define SIM_CUDA_ERROR_STREAM_CAPTURE_INVALIDATED 901

/* cudart's special stream handles, which the driver also accepts. */
#define SIM_STREAM_LEGACY ((CUstream)0x1)
#define SIM_STREAM_PER_THREAD ((CUstream)0x2)

struct sim_item;

struct CUstream_st {
    struct CUctx_st *ctx;
    uint64_t tail;               /* when the work resolved so far ends */
    struct sim_item *head;       /* work not resolved yet, oldest first */
    struct sim_item **last;      /* where the next item is linked */
    struct CUstream_st *ctx_next;      /* the context's streams */
    struct CUstream_st *pending_next;  /* the progress thread's list */
    int pending;                 /* on the progress thread's list */
    int capturing;
    struct CUgraph_st *capture_graph;  /* while capturing: what it builds */
    uint64_t capture_id;         /* while capturing: unique per capture */
    int capture_mode;            /* while capturing: CU_STREAM_CAPTURE_MODE_* it began with */
    const void *capture_thread;  /* ... the thread that began it (sim_thread_token) */
    int capture_invalid;         /* ... an unsafe call invalidated it: it ends in error */
    struct CUstream_st *capture_next;  /* the process's capturing streams */
    int destroyed;               /* freed once its queue drains */
    struct CUevent_st *last_event;  /* recorded last, nothing queued since (a reference) */
    unsigned last_event_gen;
};

struct CUctx_st {
    int device;
    struct CUstream_st default_stream;
    struct CUstream_st *streams;       /* created streams, for cuCtxSynchronize */
};

enum sim_event_state { EVENT_NEVER_RECORDED, EVENT_PENDING, EVENT_DONE };

struct CUevent_st {
    unsigned flags;
    int refs;                    /* the handle, plus each queued record of it */
    unsigned gen;                /* which record is the latest */
    enum sim_event_state state;
    uint64_t time;               /* EVENT_DONE: when it completes */
    struct CUstream_st *stream;  /* EVENT_PENDING: where it is queued */
};

/* cuda_device.c: initialization. */
void sim_cuda_init(void);
int sim_cuda_initialized(void);   /* cuInit was called */
#define SIM_REQUIRE_INIT() \
    do { if (!sim_cuda_initialized()) return CUDA_ERROR_NOT_INITIALIZED; } while (0)

/* cuda_ctx.c: devices and contexts. */
void sim_ctx_setup(void);         /* from sim_cuda_init */
int sim_device_count(void);
struct CUctx_st *sim_primary_ctx(int device);   /* NULL if out of range */
struct CUctx_st *sim_current_ctx(void);

/* cuda_progress.c: the lock, and the thread that resolves queued work. */
/* A "potentially unsafe" call (a synchronization, a query, an allocation)
 * made while a stream capture is active, as CUDA's capture modes rule it:
 * a thread in mode global may not make one while any thread's global
 * capture is active, nor a thread in mode global or thread-local while a
 * capture it began (not relaxed) is; relaxed threads may. Invalidates the
 * captures that forbid it and returns CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
 * else CUDA_SUCCESS. Lock held. cuda_capture.c */
CUresult sim_capture_unsafe_call(void);
/* A capturing stream destroyed: no longer among the capturing. Lock held. */
void sim_capture_forget(struct CUstream_st *s);
void sim_lock(void);
void sim_unlock(void);
/* Waits (lock held) until some queued work resolves, or a short while. */
void sim_progress_wait(void);
/* Wakes sim_progress_wait callers (lock held). */
void sim_progress_notify(void);
/* Puts a stream with queued work on the progress thread's list (lock held). */
void sim_progress_watch(struct CUstream_st *s);
/* Resolves what it can on every stream with queued work (lock held). */
void sim_progress_help(void);

/* cuda_queue.c: a stream's work FIFO (lock held for all). */
/* Resolves what can be resolved; returns how many items were. */
int sim_queue_resolve(struct CUstream_st *s);
void sim_queue_work(struct CUstream_st *s, const struct ncclsim_work *w);
void sim_queue_event(struct CUstream_st *s, struct CUevent_st *ev);
void sim_queue_forget_last_event(struct CUstream_st *s);   /* before freeing s */

/* cuda_stream.c */
/* The stream a handle names; `device` as in sim_cuda_private.h. NULL when
 * it names the default stream and there is no context. */
struct CUstream_st *sim_stream_get(CUstream h, int device);
void sim_stream_free(struct CUstream_st *s);   /* lock held, queue empty */
/* Waits until every item of s is resolved (lock held); returns its tail. */
uint64_t sim_stream_drain(struct CUstream_st *s);

/* cuda_graph.c (lock held for all) */
struct CUgraph_st *sim_graph_new(void);
/* Appends a node that replays `op` (copied), or one that records `ev`. */
void sim_graph_add_op(struct CUgraph_st *g, const struct ncclsim_node *op);
void sim_graph_add_event(struct CUgraph_st *g, struct CUevent_st *ev);
/* The last node, as a dependency array of *n (0 or 1) entries. */
const CUgraphNode *sim_graph_tail(struct CUgraph_st *g, size_t *n);
void sim_graph_free(struct CUgraph_st *g);

/* cuda_event.c */
void sim_event_unref(struct CUevent_st *ev);   /* lock held */

#endif
