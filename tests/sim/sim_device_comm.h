/* The simulated NCCL's device communicators (NCCL 2.28.3's device API,
 * host side: ncclDevCommCreate, ncclDevCommDestroy). NCCL's
 * nccl_device/core.h defines both structs in full, for C++ and CUDA; the
 * simulator's are its own, declared here for it and for the test programs
 * that make one: requirements holding only the versioned head that NCCL's
 * start with (nothing in them is read), and a device communicator that
 * records what it was made from. */
#ifndef NCCLSIM_DEVICE_COMM_H
#define NCCLSIM_DEVICE_COMM_H

#include "abi/nccl_abi.h"

struct ncclDevCommRequirements {
    size_t size;
    unsigned int magic;
    unsigned int version;
};

struct ncclDevComm {
    ncclComm_t comm; /* the communicator it was made from */
    int rank, nRanks;
};

#endif
