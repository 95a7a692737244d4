#include "nccl_op.h"

#include <math.h>
#include <stdlib.h>

#include "nccl_data.h"
#include "nccl_knobs.h"
#include "nccl_segment.h"
#include "nccl_signal.h"
#include "sim_cuda_private.h"

/* A graph launch runs the op again, on the launch's stream, as if issued
 * then. A captured op moves no data (NCCLSIM_DATA is not modelled in
 * graphs), and a replay cannot fail the launch: a kernel has no result. */
static void replay(void *arg, CUstream stream)
{
    struct sim_op op = *(const struct sim_op *)arg;
    op.stream = stream;
    op.data_moved = 1;
    (void)sim_op_launch(&op);
}

static ncclResult_t capture(const struct sim_op *op)
{
    struct sim_op *copy = malloc(sizeof *copy);
    if (!copy)
        return ncclSystemError;
    *copy = *op;
    struct ncclsim_node node = { .replay = replay, .release = free, .arg = copy };
    if (ncclsim_stream_capture(op->stream, op->comm->device, &node) != CUDA_SUCCESS)
        return ncclUnhandledCudaError;
    return ncclSuccess;
}

/* A random 0..max ns, the same for (rank, seq) in every run: jitter that
 * a test can repeat. splitmix64. */
static uint64_t jitter_ns(int rank, uint64_t seq, double max_us)
{
    uint64_t z = seq * 0x9e3779b97f4a7c15ull + (uint64_t)rank * 0xbf58476d1ce4e5b9ull + 1;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (uint64_t)((double)(z >> 11) / 0x1p53 * max_us * 1e3);
}

/* How long rank `rank`'s stream is busy before collective `seq`: the
 * straggler's lateness (at every NCCLSIM_SLOW_EVERYth collective, the
 * first after its compute), and every rank's jitter. */
static uint64_t late_ns(const struct sim_knobs *k, int rank, uint64_t seq)
{
    uint64_t ns = k->jitter_us > 0 ? jitter_ns(rank, seq, k->jitter_us) : 0;
    if (rank == k->slow_rank && seq % (uint64_t)k->slow_every == 0)
        ns += (uint64_t)llround(k->slow_us * 1e3);
    return ns;
}

ncclResult_t sim_op_launch(const struct sim_op *op)
{
    ncclComm_t c = op->comm;
    int capturing = ncclsim_stream_capturing(op->stream, c->device);
    if (capturing < 0)
        return ncclUnhandledCudaError;
    if (capturing)
        return capture(op);
    struct ncclsim_work w = { .duration_ns = op->duration_ns };
    if (sim_data_enabled() && !op->data_moved) {
        ncclResult_t r = sim_data_move(op, c->next_seq);
        if (r != ncclSuccess)
            return r;
    }
    if (sim_func_is_onesided(op->func)) {
        ncclResult_t r = sim_signal_gate(op, &w);
        if (r != ncclSuccess)
            return r;
    } else if (sim_func_is_collective(op->func)) {
        const struct sim_knobs *k = sim_knobs();
        uint64_t seq = c->next_seq++;
        int hang = c->rank == k->hang_rank && seq == (uint64_t)k->hang_seq;
        /* A late rank's stream is busy (computing, say) before the
         * collective: before the event recorded just before it too. */
        uint64_t late_by = late_ns(k, c->rank, seq);
        if (late_by) {
            struct ncclsim_work late = { .delay_ns = late_by, .before_last_event = 1 };
            if (ncclsim_stream_enqueue(op->stream, c->device, &late) != CUDA_SUCCESS)
                return ncclUnhandledCudaError;
        }
        /* A rank that never arrives never gets there at all. */
        if (hang) {
            struct ncclsim_work stuck = { .before_last_event = 1 };
            ncclResult_t r = sim_segment_gate(c->seg, c->rank, seq, 1, &stuck);
            if (r != ncclSuccess)
                return r;
            if (ncclsim_stream_enqueue(op->stream, c->device, &stuck) != CUDA_SUCCESS)
                return ncclUnhandledCudaError;
        }
        /* A lone rank meets nobody: it needs the rendezvous only to hang.
         * (Skipping it also keeps the simulator's own cost per call steady,
         * which instruction-count benchmarks of the shim rely on.) */
        if (c->nranks > 1 || hang) {
            sim_segment_reserve(c->seg, c->rank, seq);
            ncclResult_t r = sim_segment_gate(c->seg, c->rank, seq, hang, &w);
            if (r != ncclSuccess)
                return r;
        }
    }
    if (ncclsim_stream_enqueue(op->stream, c->device, &w) != CUDA_SUCCESS)
        return ncclUnhandledCudaError;
    return ncclSuccess;
}
