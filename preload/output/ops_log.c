#include "ops_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "comm_registry.h"
#include "config.h"
#include "log.h"
#include "out_file.h"
#include "output.h"
#include "runtime.h"

/* Lines are gathered here and written with write(2), whole lines only: no
 * stdio buffer that a forked child could flush a second time, and no torn
 * line when the process dies between two writes. */
static char buf[64 * 1024];
static size_t used;
static int log_fd = -1;
static atomic_flag error_said = ATOMIC_FLAG_INIT;
static int failed;

static int open_log(void)
{
    if (log_fd >= 0 || failed)
        return log_fd;
    char name[TAP_OUT_NAME_MAX];
    tap_output_name(name, sizeof name, ".ops.jsonl");
    int dir = tap_output_dir();
    log_fd = dir < 0 ? -1 : tap_out_file_create(dir, name, TAP_OUT_FILE_MODE);
    if (log_fd < 0) {
        failed = 1;
        if (dir >= 0)
            TAP_LOG_ONCE(error_said, "cannot create %s/%s (%s): no per-operation log", tap_config.dir, name,
                         strerror(errno));
    }
    return log_fd;
}

void tap_ops_log_flush(void)
{
    size_t done = 0;
    while (done < used && log_fd >= 0) {
        ssize_t n = write(log_fd, buf + done, used - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            TAP_LOG_ONCE(error_said, "cannot write the per-operation log (%s); lines are missing",
                         n < 0 ? strerror(errno) : "nothing written");
            break;
        }
        done += (size_t)n;
    }
    used = 0;
}

/* Appends one line (printf format); writes the buffer out first when the
 * line might not fit. */
__attribute__((format(printf, 1, 2))) static void put_line(const char *fmt, ...)
{
    if (sizeof buf - used < 1024)
        tap_ops_log_flush();
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + used, sizeof buf - used, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof buf - used)
        used += (size_t)n; /* else the line is cut: dropped, never written half */
}

void tap_ops_log_write(const struct tap_completion *c)
{
    if (!tap_config.ops_jsonl || open_log() < 0)
        return;
    const struct tap_op_rec *op = c->op;
    char dtype[32];
    put_line("{\"rank\": %d, \"comm\": \"%016llx\", \"seq\": %llu, \"op\": \"%s\", \"dtype\": \"%s\", "
             "\"count\": %llu, \"bytes\": %llu, \"peer\": %d, \"group\": %llu, \"group_ops\": %u, "
             "\"stream\": \"%p\", \"tid\": %u, \"enqueue_ns\": %llu, \"start_ns\": %llu, \"end_ns\": %llu, "
             "\"duration_ns\": %llu, \"busbw_gbs\": %.6g}\n",
             op->comm->rank, (unsigned long long)op->comm->id, (unsigned long long)op->seq,
             tap_op_name((enum tap_op)op->op), tap_dtype_name(op->dtype, dtype, sizeof dtype),
             (unsigned long long)op->count, (unsigned long long)op->bytes, op->peer,
             (unsigned long long)op->group_id, c->group_ops, op->stream, op->tid,
             (unsigned long long)op->enqueue_ns, (unsigned long long)c->start_ns,
             (unsigned long long)c->end_ns, (unsigned long long)c->duration_ns, c->busbw_gbs);
}

void tap_ops_log_reset(void)
{
    /* The parent's lines are the parent's: dropped here, not written twice.
     * Its descriptor is closed: the child makes its own file. */
    used = 0;
    if (log_fd >= 0)
        close(log_fd);
    log_fd = -1;
    failed = 0;
    atomic_flag_clear(&error_said);
}
