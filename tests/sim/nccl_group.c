#include "nccl_group.h"

#include <stdlib.h>

#include "nccl_data.h"
#include "nccl_job.h"
#include "nccl_op.h"
#include "sim_cuda_private.h"

struct deferred {
    struct sim_job *job;   /* a communicator creation, or else: */
    struct sim_op op;
};

static __thread int depth;
static __thread ncclResult_t group_error;
static __thread struct deferred *queue;
static __thread size_t queued, capacity;

ncclResult_t sim_group_error(ncclResult_t r)
{
    if (depth && r != ncclSuccess && group_error == ncclSuccess)
        group_error = r;
    return r;
}

static ncclResult_t push(const struct deferred *d)
{
    if (queued == capacity) {
        size_t ncap = capacity ? 2 * capacity : 16;
        struct deferred *n = realloc(queue, ncap * sizeof *n);
        if (!n)
            return ncclSystemError;
        queue = n;
        capacity = ncap;
    }
    queue[queued++] = *d;
    return ncclSuccess;
}

ncclResult_t sim_group_submit_op(const struct sim_op *op)
{
    if (!depth)
        return sim_op_launch(op);
    return sim_group_error(push(&(struct deferred){ .op = *op }));
}

ncclResult_t sim_group_submit_job(struct sim_job *job)
{
    if (!depth)
        return sim_jobs_run(&job, 1);
    ncclResult_t r = push(&(struct deferred){ .job = job });
    if (r != ncclSuccess) {
        *job->out = NULL;
        sim_job_free(job);
    }
    return sim_group_error(r);
}

/* Ends the outermost group: creates its communicators, then launches its
 * operations (unless `launch` is 0, or something in the group failed).
 * Adds the operations' durations to *sum_ns when not NULL. */
static ncclResult_t end_group(int launch, uint64_t *sum_ns)
{
    struct deferred *q = queue;
    size_t n = queued;
    queue = NULL;
    queued = capacity = 0;
    ncclResult_t err = group_error;
    group_error = ncclSuccess;

    struct sim_job **jobs = calloc(n ? n : 1, sizeof *jobs);
    int njobs = 0;
    for (size_t i = 0; i < n; i++)
        if (q[i].job) {
            if (jobs) {
                jobs[njobs++] = q[i].job;
            } else {
                *q[i].job->out = NULL;
                sim_job_free(q[i].job);
            }
        }
    ncclResult_t r = jobs ? sim_jobs_run(jobs, njobs) : ncclSystemError;
    free(jobs);
    if (err == ncclSuccess)
        err = r;

    /* NCCLSIM_DATA: a receive waits in its launch for its send, so the
     * group's sends post their data before any of its receives waits, as
     * NCCL lets a group's sends and receives come in any order. */
    for (size_t i = 0; launch && err == ncclSuccess && sim_data_enabled() && i < n; i++) {
        if (q[i].job || q[i].op.func != SIM_SEND)
            continue;
        int capturing = ncclsim_stream_capturing(q[i].op.stream, q[i].op.comm->device);
        if (capturing == 0)
            err = sim_data_move(&q[i].op, 0);
        q[i].op.data_moved = 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (q[i].job)
            continue;
        if (sum_ns)
            *sum_ns += q[i].op.duration_ns;
        if (launch && err == ncclSuccess)
            err = sim_op_launch(&q[i].op);
    }
    free(q);
    return err;
}

ncclResult_t sim_ncclGroupStart(void)
{
    depth++;
    return ncclSuccess;
}

ncclResult_t sim_ncclGroupEnd(void)
{
    if (!depth)
        return ncclInvalidUsage;
    if (--depth)
        return ncclSuccess;
    return end_group(1, NULL);
}

ncclResult_t sim_ncclGroupSimulateEnd(ncclSimInfo_t *simInfo)
{
    if (!simInfo)
        return sim_group_error(ncclInvalidArgument);
    if (!depth)
        return ncclInvalidUsage;
    if (--depth)
        return ncclSuccess;
    uint64_t sum = 0;
    ncclResult_t r = end_group(0, &sum);
    /* NCCL reports the estimate in microseconds. */
    simInfo->estimatedTime = (float)((double)sum / 1e3);
    return r;
}
