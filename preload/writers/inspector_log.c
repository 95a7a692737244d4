#include "writers/inspector_log.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "state/comm_nodes.h"
#include "state/comm_registry.h"
#include "base/config.h"
#include "base/json_writer.h"
#include "base/process.h"

/* Inspector's format version whose records this writes: self-contained
 * lines (v4.3 moved header and metadata into a per-dump marker, and
 * Inspector's own reader still takes v4.0 lines), without the algorithm
 * and protocol of v4.2, which an interposer cannot see. */
#define INSPECTOR_FORMAT "v4.0"

/* How Inspector's "coll_timing_source" names the clock of a time; its own
 * are kernel_gpu, kernel_cpu and collective_cpu. nccltap's times are CUDA
 * events recorded on the caller's stream around the call. */
#define TIMING_SOURCE "cuda_event"

/* When the record was made, in Unix microseconds, as Inspector's
 * dump_timestamp_us: the op's GPU end placed on the Unix clock, or now
 * when its end is not known. */
static unsigned long long record_time_us(const struct tap_completion *c)
{
    if (c->end_ns && c->end_ns >= tap_process.start_mono_ns)
        return (tap_process.start_unix_ns + (c->end_ns - tap_process.start_mono_ns)) / 1000;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000;
}

/* Inspector writes bandwidths with "%lf": a NaN or infinity would not be
 * JSON, and there is none to write (0 when the duration is 0). */
static double finite_or_0(double v)
{
    return isfinite(v) ? v : 0;
}

size_t tap_inspector_line(char *line, size_t cap, const struct tap_completion *c)
{
    const struct tap_op_rec *op = c->op;
    const struct tap_comm *comm = op->comm;
    char name[64 * 6 + 3], host[sizeof tap_process.host * 6 + 3];
    if (!json_string_buf(name, sizeof name, comm->name[0] ? comm->name : "unknown") ||
        !json_string_buf(host, sizeof host, tap_process.host))
        return 0;
    bool p2p = tap_op_is_p2p(op->op);
    const char *kind = p2p ? "p2p" : "coll";
    /* Inspector's message size is the count NCCL was given times the
     * type's size (AllGather: the send count; ReduceScatter: the receive
     * count), not nccl-tests' S of the whole array. */
    unsigned long long msg = (unsigned long long)op->count * tap_dtype_size(op->dtype);
    int n = snprintf(line, cap,
                     "{\"header\":{\"id\":\"0x%llx\",\"comm_name\":%s,\"rank\":%d,\"n_ranks\":%d,\"nnodes\":%d},"
                     "\"metadata\":{\"inspector_output_format_version\":\"" INSPECTOR_FORMAT "\","
                     "\"git_rev\":\"nccltap-" NCCLTAP_VERSION "\",\"rec_mechanism\":\"nccltap_interposition\","
                     "\"dump_timestamp_us\":%llu,\"hostname\":%s,\"pid\":%d},",
                     (unsigned long long)comm->id, name, comm->rank, comm->nranks, tap_comm_nodes(comm),
                     record_time_us(c), host, tap_process.pid);
    if (n <= 0 || (size_t)n >= cap)
        return 0;
    size_t used = (size_t)n;
    char peer[32] = "";
    if (p2p)
        snprintf(peer, sizeof peer, "\"p2p_peer\":%d,", op->peer);
    n = snprintf(line + used, cap - used,
                 "\"%s_perf\":{\"%s\":\"%s\",\"%s_sn\":%llu,%s\"%s_msg_size_bytes\":%llu,"
                 "\"%s_exec_time_us\":%llu,\"%s_timing_source\":\"" TIMING_SOURCE "\","
                 "\"%s_algobw_gbs\":%f,\"%s_busbw_gbs\":%f}}\n",
                 kind, kind, tap_op_name((enum tap_op)op->op), kind, (unsigned long long)op->seq, peer, kind,
                 msg, kind, (unsigned long long)((c->duration_ns + 500) / 1000), kind, kind,
                 finite_or_0(c->algbw_gbs), kind, finite_or_0(c->busbw_gbs));
    if (n <= 0 || (size_t)n >= cap - used)
        return 0;
    return used + (size_t)n;
}
