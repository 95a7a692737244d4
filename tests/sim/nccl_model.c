#include "nccl_model.h"

#include <math.h>

#include "nccl_knobs.h"

size_t sim_type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: case ncclFloat8e4m3: case ncclFloat8e5m2: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
    }
}

int sim_func_is_collective(enum sim_func f)
{
    return f != SIM_SEND && f != SIM_RECV && !sim_func_is_onesided(f);
}

int sim_func_is_onesided(enum sim_func f)
{
    return f == SIM_PUTSIGNAL || f == SIM_SIGNAL || f == SIM_WAITSIGNAL;
}

uint64_t sim_duration_ns(enum sim_func f, size_t count, ncclDataType_t t, int nranks, int slow_link)
{
    double n = nranks;
    double bytes = (double)count * (double)sim_type_size(t);
    double s, factor;
    switch (f) {
    case SIM_ALLREDUCE: s = bytes; factor = 2 * (n - 1) / n; break;
    case SIM_REDUCESCATTER:
    case SIM_ALLGATHER:
    case SIM_ALLTOALL:
    case SIM_GATHER:
    case SIM_SCATTER: s = bytes * n; factor = (n - 1) / n; break;
    default: s = bytes; factor = 1; break;   /* broadcast, reduce, send, recv, put; signal and wait: no bytes */
    }
    const struct sim_knobs *k = sim_knobs();
    /* bytes / (GB/s * 1e9 B/s) seconds = bytes / GB/s nanoseconds */
    double link = slow_link ? k->slow_link_factor : 1;
    return (uint64_t)llround(k->lat_us * 1e3 + link * s * factor / k->busbw_gbs);
}
