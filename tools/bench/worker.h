/* One thread of a rank: its own communicator, stream, buffers and events.
 * Thread t of every rank joins communicator t. */
#ifndef NCCLTAP_BENCH_WORKER_H
#define NCCLTAP_BENCH_WORKER_H

#include "rank.h"

struct worker {
    struct rank_ctx *rk;
    int thread;
    ncclComm_t comm;
    CUstream stream;
    CUdeviceptr send;
    CUdeviceptr recv;
    unsigned char *host;    /* --check: max-size host buffer */
    CUevent *ev_start;      /* one pair per timed call or group */
    CUevent *ev_end;
    int nev;
};

/* pthread entry; `arg` is a struct worker *. Returns NULL; dies on error. */
void *worker_main(void *arg);

/* Returns when every thread of every rank has called it. */
void worker_barrier(struct worker *w);

#endif
