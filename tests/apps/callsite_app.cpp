// The call-site test program: AllReduces issued from three places, each a
// distinct call site with a known function, line and number of calls
// (tests/callsite_test.py reads the lines from the SITE: markers):
//   app::reduce_direct      3 calls, a function of its own;
//   app::reduce_inlined     5 calls, inlined into app::step;
//   lib::Reducer::run       7 calls, in libcallsite_lib.so, called from main
//                           (where NCCLTAP_CALLSITE_SKIP=libcallsite_lib puts them).
extern "C" {
#include "nccl_app.h"
}
#include "callsite_lib.h"

#include <cstdio>
#include <cstdlib>

namespace app {

static void check(ncclResult_t r)
{
    if (r != ncclSuccess) {
        std::fprintf(stderr, "NCCL call failed: %d\n", r);
        std::exit(1);
    }
}

__attribute__((noinline)) void reduce_direct(ncclComm_t comm, cudaStream_t s, void *buf)
{
    check(ncclAllReduce(buf, buf, 256, ncclFloat32, ncclSum, comm, s)); // SITE:direct
}

static inline __attribute__((always_inline)) void reduce_inlined(ncclComm_t comm, cudaStream_t s, void *buf)
{
    check(ncclAllReduce(buf, buf, 512, ncclFloat32, ncclSum, comm, s)); // SITE:inlined
}

__attribute__((noinline)) void step(ncclComm_t comm, cudaStream_t s, void *buf)
{
    reduce_inlined(comm, s, buf);
}

} // namespace app

int main()
{
    app_cuda_init();
    CUstream s = app_stream_on(0);
    void *buf = app_buffer(4096);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    for (int i = 0; i < 3; i++)
        app::reduce_direct(comm, s, buf);
    for (int i = 0; i < 5; i++)
        app::step(comm, s, buf);
    lib::Reducer reducer{comm, s};
    for (int i = 0; i < 7; i++)
        reducer.run(buf, 1024); // SITE:caller
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommDestroy(comm));
    return 0;
}
