/* The life of one thread of a rank: sets up its communicator, stream and
 * buffers, runs every op and size (measure, check, report), tears down. */
#ifndef NCCLTAP_BENCH_WORKER_H
#define NCCLTAP_BENCH_WORKER_H

/* pthread entry; `arg` is a struct worker * (worker_ctx.h) whose rk and
 * thread are set. Returns NULL; dies on error. */
void *worker_main(void *arg);

#endif
