/* Communicators: creation from a unique id, destruction, queries. */
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

#include "nccl_group.h"
#include "nccl_internal.h"
#include "nccl_job.h"
#include "nccl_segment.h"
#include "sim_device_comm.h"
#include "sim_cuda_private.h"

ncclResult_t sim_ncclGetVersion(int *version)
{
    if (!version)
        return ncclInvalidArgument;
    *version = SIM_NCCL_VERSION;
    return ncclSuccess;
}

ncclResult_t sim_ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    if (!uniqueId)
        return ncclInvalidArgument;
    /* Random: it names the communicator's shared memory, which must not
     * collide with that of any other test running at the same time. */
    size_t got = 0;
    while (got < sizeof uniqueId->internal) {
        ssize_t n = getrandom(uniqueId->internal + got, sizeof uniqueId->internal - got, 0);
        if (n < 0 && errno != EINTR)
            return ncclSystemError;
        if (n > 0)
            got += (size_t)n;
    }
    return ncclSuccess;
}

ncclResult_t sim_ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    return sim_job_join(comm, "ncclCommInitRank", &commId, nranks, rank, 1);
}

ncclResult_t sim_ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                                        int rank, ncclConfig_t *config)
{
    /* Every config is accepted. A non-blocking one (blocking = 0) makes the
     * communicator's operations return ncclInProgress, as NCCL may; they
     * are enqueued all the same, and ncclCommGetAsyncError says success. */
    ncclResult_t r = sim_job_join(comm, "ncclCommInitRankConfig", &commId, nranks, rank, 1);
    if (r == ncclSuccess && comm && *comm && config && config->blocking == 0)
        (*comm)->nonblocking = 1;
    return r;
}

ncclResult_t sim_ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks, int myrank, int nId,
                                          ncclUniqueId *commIds, ncclConfig_t *config)
{
    (void)config;
    if (nId < 1 || !commIds) {
        if (newcomm)
            *newcomm = NULL;
        return sim_group_error(ncclInvalidArgument);
    }
    /* Every rank passes the same ids in the same order: the first names it. */
    return sim_job_join(newcomm, "ncclCommInitRankScalable", &commIds[0], nranks, myrank, 1);
}

ncclResult_t sim_ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist)
{
    if (!comm || ndev < 1 || (!devlist && ndev > ncclsim_device_count()))
        return ncclInvalidArgument;
    for (int i = 0; i < ndev; i++)
        if (devlist && (devlist[i] < 0 || devlist[i] >= ncclsim_device_count()))
            return ncclInvalidArgument;
    ncclUniqueId id;
    ncclResult_t r = sim_ncclGetUniqueId(&id);
    struct sim_job **jobs = calloc((size_t)ndev, sizeof *jobs);
    if (!jobs)
        return ncclSystemError;
    for (int i = 0; i < ndev && r == ncclSuccess; i++) {
        jobs[i] = sim_job_new(SIM_JOB_JOIN, "ncclCommInitAll", devlist ? devlist[i] : i, &comm[i]);
        if (!jobs[i]) {
            r = ncclSystemError;
            break;
        }
        jobs[i]->comm->id = sim_comm_id(&id);
        jobs[i]->comm->rank = i;
        jobs[i]->comm->nranks = ndev;
    }
    if (r == ncclSuccess) {
        /* All ranks are this thread's: never deferred to a group's end. */
        r = sim_jobs_run(jobs, ndev);
    } else {
        for (int i = 0; i < ndev; i++) {
            if (jobs[i])
                sim_job_free(jobs[i]);
            comm[i] = NULL;
        }
    }
    free(jobs);
    return r;
}

ncclResult_t sim_ncclCommFinalize(ncclComm_t comm)
{
    /* Queued operations complete on their own; nothing to flush. */
    return comm ? ncclSuccess : ncclInvalidArgument;
}

ncclResult_t sim_ncclCommDestroy(ncclComm_t comm)
{
    if (!comm)
        return ncclInvalidArgument;
    /* Queued collectives keep the segment mapped until they resolve. */
    sim_segment_unref(comm->seg);
    free(comm->p2p_seq);
    free(comm->signals);
    sim_comm_free(comm);
    return ncclSuccess;
}

ncclResult_t sim_ncclCommAbort(ncclComm_t comm)
{
    if (!comm)
        return ncclInvalidArgument;
    sim_segment_abort(comm->seg);
    return sim_ncclCommDestroy(comm);
}

ncclResult_t sim_ncclCommCount(const ncclComm_t comm, int *count)
{
    if (!comm || !count)
        return ncclInvalidArgument;
    *count = comm->nranks;
    return ncclSuccess;
}

ncclResult_t sim_ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    if (!comm || !device)
        return ncclInvalidArgument;
    *device = comm->device;
    return ncclSuccess;
}

ncclResult_t sim_ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (!comm || !rank)
        return ncclInvalidArgument;
    *rank = comm->rank;
    return ncclSuccess;
}

ncclResult_t sim_ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    if (!comm || !asyncError)
        return ncclInvalidArgument;
    *asyncError = ncclSuccess;
    return ncclSuccess;
}

const char *sim_ncclGetErrorString(ncclResult_t result)
{
    switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    case ncclTimeout: return "operation timed out";
    default: return "unknown result code";
    }
}

/* Memory, registration, windows, suspend/resume and revoke (2.19 to
 * 2.29): argument checks as NCCL's, and nothing else: the simulator has
 * no buffers to register and no resources to release. ncclMemAlloc gives
 * host memory (zeroed), as device memory is with NCCLSIM_DATA. */
ncclResult_t sim_ncclMemAlloc(void **ptr, size_t size)
{
    if (!ptr || size == 0)
        return ncclInvalidArgument;
    *ptr = calloc(1, size);
    return *ptr ? ncclSuccess : ncclSystemError;
}

ncclResult_t sim_ncclMemFree(void *ptr)
{
    free(ptr);
    return ncclSuccess;
}

ncclResult_t sim_ncclCommRegister(const ncclComm_t comm, void *buff, size_t size, void **handle)
{
    if (!comm || !buff || !size || !handle)
        return ncclInvalidArgument;
    *handle = buff;
    return ncclSuccess;
}

ncclResult_t sim_ncclCommDeregister(const ncclComm_t comm, void *handle)
{
    return comm && handle ? ncclSuccess : ncclInvalidArgument;
}

struct ncclWindow_vidmem {
    void *buff;
    size_t size;
};

ncclResult_t sim_ncclCommWindowRegister(ncclComm_t comm, void *buff, size_t size, ncclWindow_t *win, int winFlags)
{
    (void)winFlags;
    if (!comm || !buff || !size || !win)
        return ncclInvalidArgument;
    *win = malloc(sizeof **win);
    if (!*win)
        return ncclSystemError;
    **win = (struct ncclWindow_vidmem){buff, size};
    return ncclSuccess;
}

ncclResult_t sim_ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win)
{
    if (!comm || !win)
        return ncclInvalidArgument;
    free(win);
    return ncclSuccess;
}

ncclResult_t sim_ncclCommSuspend(ncclComm_t comm, int flags)
{
    if (!comm || (flags & ~1))
        return ncclInvalidArgument;
    if (comm->suspended)
        return ncclInvalidUsage;
    comm->suspended = 1;
    return ncclSuccess;
}

ncclResult_t sim_ncclCommResume(ncclComm_t comm)
{
    if (!comm)
        return ncclInvalidArgument;
    if (!comm->suspended)
        return ncclInvalidUsage;
    comm->suspended = 0;
    return ncclSuccess;
}

ncclResult_t sim_ncclCommRevoke(ncclComm_t comm, int revokeFlags)
{
    return comm && revokeFlags == 0 ? ncclSuccess : ncclInvalidArgument;
}

/* Device communicators (2.28.3): made from a communicator with no
 * resources behind them (no kernel of the simulator reads them); NULL
 * arguments refused as NCCL refuses them, and a device communicator
 * destroyed with another communicator than its own. */
ncclResult_t sim_ncclDevCommCreate(ncclComm_t comm, ncclDevCommRequirements_t const *reqs, ncclDevComm_t *outDevComm)
{
    if (!comm || !reqs || !outDevComm)
        return ncclInvalidArgument;
    *outDevComm = (ncclDevComm_t){comm, comm->rank, comm->nranks};
    return ncclSuccess;
}

ncclResult_t sim_ncclDevCommDestroy(ncclComm_t comm, ncclDevComm_t const *devComm)
{
    if (!comm || !devComm)
        return ncclInvalidArgument;
    return devComm->comm == comm ? ncclSuccess : ncclInvalidUsage;
}
