/* Creating a communicator: the part that waits for the other ranks.
 *
 * Every way of creating one (init, split, shrink, grow) becomes a job
 * that is submitted at the call and finished in two phases: connect (learn
 * the other ranks' arguments, open the segment) and complete (wait until
 * every rank has opened it). Inside ncclGroupStart/End the phases run at
 * the outermost ncclGroupEnd, first phase of every job before the second,
 * so that one thread can create the communicators of several GPUs, as
 * NCCL allows. */
#ifndef NCCLSIM_NCCL_JOB_H
#define NCCLSIM_NCCL_JOB_H

#include "nccl_internal.h"

struct sim_rdv;

enum sim_job_kind {
    SIM_JOB_JOIN,    /* id, rank and size known: init, shrink, new rank of a grow */
    SIM_JOB_SPLIT,   /* learns its color group from the exchange */
    SIM_JOB_GROW     /* existing rank of a grow: learns the id from the exchange */
};

struct sim_job {
    enum sim_job_kind kind;
    const char *what;        /* the API call, for messages */
    ncclComm_t comm;         /* the communicator being made (NULL: none) */
    ncclComm_t *out;         /* receives it once complete, NULL on failure */
    struct sim_rdv *rdv;     /* SPLIT, GROW: the exchange, already posted */
    ncclComm_t parent;       /* SPLIT, GROW */
    uint64_t child_id;       /* SPLIT: id of the child, before the color */
    int color, key;          /* SPLIT */
};

/* What each rank posts in the exchange of a split or grow. */
struct sim_child_rec {
    int32_t color, key;      /* split */
    int32_t has_uid, pad;    /* grow: the root rank passes the unique id */
    ncclUniqueId uid;
};

/* A new job with a new communicator on `device`; NULL if out of memory. */
struct sim_job *sim_job_new(enum sim_job_kind kind, const char *what, int device, ncclComm_t *out);

/* Frees a job that was never run, and its communicator. */
void sim_job_free(struct sim_job *job);

/* A new communicator's memory, zeroed; with NCCLSIM_REUSE_HANDLES, the
 * last destroyed one's (sim_comm_free), as NCCL's allocator may give. */
ncclComm_t sim_comm_alloc(void);
void sim_comm_free(ncclComm_t c);

/* Runs both phases for every job; frees them. Returns the first error. */
ncclResult_t sim_jobs_run(struct sim_job **jobs, int n);

/* Creates (or, in a group, queues the creation of) rank `rank` of the
 * `nranks` ranks of communicator `id`, on the current device; checks the
 * arguments as NCCL does. With `early`, *comm is set at once, as the
 * ncclCommInitRank family does (the handle is usable after the group);
 * otherwise at completion, as ncclCommGrow does. NULL on failure. */
ncclResult_t sim_job_join(ncclComm_t *comm, const char *what, const ncclUniqueId *id,
                          int nranks, int rank, int early);

/* Communicator id of a unique id. */
uint64_t sim_comm_id(const ncclUniqueId *uid);

#endif
