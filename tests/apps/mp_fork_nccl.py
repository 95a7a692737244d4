#!/usr/bin/env python3
"""Python multiprocessing with the fork start method, whose workers end
with os._exit once their target returns (no exit handler runs): WORKERS
workers, each a one-rank communicator through ctypes, CALLS AllReduces,
ncclCommDestroy, and back. The parent makes no NCCL or CUDA call. Prints
what the workers did, as tests/shim_case.py reads it: every worker's rank
file must hold every call.
"""
import ctypes
import json
import multiprocessing

WORKERS, CALLS = 2, 6
P = ctypes.c_void_p


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]  # passed by value


def check(what, r):
    if r != 0:
        raise SystemExit("%s returned %d" % (what, r))


def worker():
    cuda = ctypes.CDLL("libcuda.so.1")
    nccl = ctypes.CDLL("libnccl.so.2")
    dev, ctx, stream, buf = ctypes.c_int(), P(), P(), ctypes.c_uint64()
    check("cuInit", cuda.cuInit(0))
    check("cuDeviceGet", cuda.cuDeviceGet(ctypes.byref(dev), 0))
    check("cuDevicePrimaryCtxRetain", cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
    check("cuCtxSetCurrent", cuda.cuCtxSetCurrent(ctx))
    check("cuStreamCreate", cuda.cuStreamCreate(ctypes.byref(stream), 1))
    check("cuMemAlloc_v2", cuda.cuMemAlloc_v2(ctypes.byref(buf), ctypes.c_size_t(1 << 16)))
    uid, comm = UniqueId(), P()
    check("ncclGetUniqueId", nccl.ncclGetUniqueId(ctypes.byref(uid)))
    check("ncclCommInitRank", nccl.ncclCommInitRank(ctypes.byref(comm), 1, uid, 0))
    for _ in range(CALLS):
        check("ncclAllReduce", nccl.ncclAllReduce(P(buf.value), P(buf.value), ctypes.c_size_t(1024), 7, 0, comm,
                                                  stream))
    check("cuStreamSynchronize", cuda.cuStreamSynchronize(stream))
    check("ncclCommDestroy", nccl.ncclCommDestroy(comm))
    # Returning ends the worker: multiprocessing calls os._exit(0).


def main():
    fork = multiprocessing.get_context("fork")
    workers = [fork.Process(target=worker) for _ in range(WORKERS)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
        if w.exitcode != 0:
            raise SystemExit("a worker exited %s" % w.exitcode)
    print(json.dumps({"expect": "calls", "origin": "init", "rank": 0, "op": "AllReduce", "n": WORKERS * CALLS}))
    print(json.dumps({"expect": "totals", "key": "files", "n": WORKERS}))


if __name__ == "__main__":
    main()
