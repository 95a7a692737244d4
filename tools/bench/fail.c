#include "fail.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int fail_rank = -1;
static _Thread_local int fail_thread = -1;

void fail_set_rank(int rank) { fail_rank = rank; }
void fail_set_thread(int thread) { fail_thread = thread; }

/* The line vsay would print, with its newline, into line[cap]; its length. */
static size_t vformat(char *line, size_t cap, const char *fmt, va_list ap)
{
    int n;
    if (fail_rank < 0)
        n = snprintf(line, cap, "nccltap-bench: ");
    else if (fail_thread < 0)
        n = snprintf(line, cap, "nccltap-bench: rank %d: ", fail_rank);
    else
        n = snprintf(line, cap, "nccltap-bench: rank %d thread %d: ",
                     fail_rank, fail_thread);
    if (n < 0 || (size_t)n >= cap)
        n = 0;
    int m = vsnprintf(line + n, cap - (size_t)n - 1, fmt, ap);
    if (m < 0)
        m = 0;
    size_t len = (size_t)n + (size_t)m;
    if (len > cap - 2)
        len = cap - 2;
    line[len++] = '\n';
    return len;
}

size_t fail_format(char *line, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t len = vformat(line, cap, fmt, ap);
    va_end(ap);
    return len;
}

static void vsay(const char *fmt, va_list ap)
{
    /* One buffer and one write, so that lines of concurrent ranks do not
     * interleave mid-line on a shared terminal. */
    char line[1024];
    size_t len = vformat(line, sizeof line, fmt, ap);
    fflush(stdout);
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

void bench_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    /* _exit, not exit: other threads of this rank may be inside NCCL or a
     * barrier, and running atexit handlers under them is not safe. The table
     * printed so far is flushed by vsay. */
    _exit(1);
}

void bench_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

void cu_check(const struct cuda_driver *drv, CUresult r, const char *call)
{
    if (r != CUDA_SUCCESS)
        bench_die("%s failed: %s (%d)", call, cuda_driver_error(drv, r), r);
}

void nccl_check(ncclResult_t r, const char *call)
{
    if (r != ncclSuccess)
        bench_die("%s failed: %s (%d)", call, ncclGetErrorString(r), (int)r);
}
