#include "ops_log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "comm_registry.h"
#include "config.h"
#include "log.h"
#include "runtime.h"

static FILE *log_file;
static atomic_flag error_said = ATOMIC_FLAG_INIT;
static int failed;

static FILE *open_log(void)
{
    if (log_file || failed)
        return log_file;
    char path[4096 + 320];
    snprintf(path, sizeof path, "%s/nccltap-%s-%d.ops.jsonl", tap_config.dir, tap_process.host,
             tap_process.pid);
    mkdir(tap_config.dir, 0777);
    log_file = fopen(path, "a");
    if (!log_file) {
        failed = 1;
        TAP_LOG_ONCE(error_said, "cannot write %s (%s): no per-operation log", path, strerror(errno));
    }
    return log_file;
}

void tap_ops_log_write(const struct tap_completion *c)
{
    if (!tap_config.ops_jsonl || !open_log())
        return;
    const struct tap_op_rec *op = c->op;
    char dtype[32];
    fprintf(log_file,
            "{\"rank\": %d, \"comm\": \"%016llx\", \"seq\": %llu, \"op\": \"%s\", \"dtype\": \"%s\", "
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

void tap_ops_log_flush(void)
{
    if (log_file && fflush(log_file) != 0)
        TAP_LOG_ONCE(error_said, "cannot write the per-operation log (%s); lines may be missing",
                     strerror(errno));
}

void tap_ops_log_reset(void)
{
    log_file = NULL; /* the parent's FILE stays the parent's */
    failed = 0;
}
