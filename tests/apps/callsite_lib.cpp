#include "callsite_lib.h"

#include <cstdio>
#include <cstdlib>

void lib::Reducer::run(void *buf, size_t count)
{
    if (ncclAllReduce(buf, buf, count, ncclFloat32, ncclSum, comm, stream) != ncclSuccess) { // SITE:library
        std::fprintf(stderr, "ncclAllReduce failed\n");
        std::exit(1);
    }
}
