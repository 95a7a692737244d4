/* For tests/apps/ctypes_nccl.py: NCCL called from a thread of C, which
 * has no Python frame (as DDP's autograd threads), through the function
 * pointer Python got with ctypes. Its call site is native:
 * c_thread_nccl_loop. */
#include <pthread.h>
#include <stddef.h>

typedef int (*all_reduce_fn)(const void *, void *, size_t, int, int, void *, void *);

struct job {
    all_reduce_fn fn;
    void *comm, *stream, *buf;
    int n, failed;
};

void *c_thread_nccl_loop(void *arg);
int c_thread_nccl(all_reduce_fn fn, void *comm, void *stream, void *buf, int n);

__attribute__((noinline)) void *c_thread_nccl_loop(void *arg)
{
    struct job *j = arg;
    for (int k = 0; k < j->n; k++)
        j->failed |= j->fn(j->buf, j->buf, 128, 7 /* float32 */, 0 /* sum */, j->comm, j->stream) != 0;
    return NULL;
}

/* n AllReduces from a new thread; 0 when every one succeeded. */
int c_thread_nccl(all_reduce_fn fn, void *comm, void *stream, void *buf, int n)
{
    struct job j = {fn, comm, stream, buf, n, 0};
    pthread_t t;
    if (pthread_create(&t, NULL, c_thread_nccl_loop, &j) != 0)
        return -1;
    pthread_join(t, NULL);
    return j.failed;
}

int c_nccl_forever(all_reduce_fn fn, void *comm, void *stream, void *buf);

/* AllReduces from the calling thread until the process ends: called from
 * a Python daemon thread (ctypes releases the GIL), it is still inside
 * NCCL while the interpreter finalizes and frees that thread's state. */
int c_nccl_forever(all_reduce_fn fn, void *comm, void *stream, void *buf)
{
    for (;;)
        if (fn(buf, buf, 128, 7 /* float32 */, 0 /* sum */, comm, stream) != 0)
            return 1;
}
