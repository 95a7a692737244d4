/* One thread of a rank: its own communicator, stream, buffers and events.
 * Thread t of every rank joins communicator t. Shared by the thread's
 * driver (worker.c, which sets it up) and its helpers (measure, check);
 * only its own thread touches it once set up. */
#ifndef NCCLTAP_BENCH_WORKER_CTX_H
#define NCCLTAP_BENCH_WORKER_CTX_H

#include "rank_ctx.h"

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

#endif
