/* ncclGroupStart/End: per thread, nesting. Inside a group, operations and
 * communicator creations are only queued; the outermost ncclGroupEnd
 * creates the communicators, then puts the operations on their streams in
 * call order. */
#ifndef NCCLSIM_NCCL_GROUP_H
#define NCCLSIM_NCCL_GROUP_H

#include "nccl_internal.h"

struct sim_op;
struct sim_job;

/* Launches the op, or queues it inside a group. */
ncclResult_t sim_group_submit_op(const struct sim_op *op);

/* Runs the job, or queues it inside a group (the group then owns it). */
ncclResult_t sim_group_submit_job(struct sim_job *job);

/* Returns r; inside a group, an error also fails the outermost
 * ncclGroupEnd, as in NCCL. */
ncclResult_t sim_group_error(ncclResult_t r);

#endif
