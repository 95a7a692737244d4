// The shared library of the call-site test (callsite_app.cpp): an AllReduce
// issued from inside a library of its own, as a framework would.
#ifndef NCCLTAP_TEST_CALLSITE_LIB_H
#define NCCLTAP_TEST_CALLSITE_LIB_H

extern "C" {
#include "abi/nccl_abi.h"
}

namespace lib {
struct Reducer {
    ncclComm_t comm;
    cudaStream_t stream;
    void run(void *buf, size_t count);
};
}

#endif
