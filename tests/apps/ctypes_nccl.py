#!/usr/bin/env python3
"""NCCL called from Python through ctypes, which loads libnccl.so.2 with
dlopen and finds each function with dlsym on its handle (and releases the
GIL around every call): AllReduce from three lines, in two threads (the
main one and a worker). Prints the calls it made, as tests/shim_case.py
reads them.
"""
import ctypes
import json
import threading

cuda = ctypes.CDLL("libcuda.so.1")
nccl = ctypes.CDLL("libnccl.so.2")
P = ctypes.c_void_p


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]  # passed by value


def check(what, r):
    if r != 0:
        raise SystemExit("%s returned %d" % (what, r))


def stream_and_buffer():
    """The primary context current on this thread, a stream, a buffer."""
    dev, ctx, stream, buf = ctypes.c_int(), P(), P(), ctypes.c_uint64()
    check("cuDeviceGet", cuda.cuDeviceGet(ctypes.byref(dev), 0))
    check("cuDevicePrimaryCtxRetain", cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
    check("cuCtxSetCurrent", cuda.cuCtxSetCurrent(ctx))
    check("cuStreamCreate", cuda.cuStreamCreate(ctypes.byref(stream), 1))
    check("cuMemAlloc_v2", cuda.cuMemAlloc_v2(ctypes.byref(buf), ctypes.c_size_t(1 << 16)))
    return stream, P(buf.value)


def all_reduce(comm, stream, buf, count):
    return nccl.ncclAllReduce(buf, buf, ctypes.c_size_t(count), 7, 0, comm, stream)


def worker(comm):
    stream, buf = stream_and_buffer()
    for _ in range(4):
        check("ncclAllReduce", all_reduce(comm, stream, buf, 512))
    check("cuStreamSynchronize", cuda.cuStreamSynchronize(stream))


def main():
    check("cuInit", cuda.cuInit(0))
    stream, buf = stream_and_buffer()
    uid = UniqueId()
    comm = P()
    check("ncclGetUniqueId", nccl.ncclGetUniqueId(ctypes.byref(uid)))
    check("ncclCommInitRank", nccl.ncclCommInitRank(ctypes.byref(comm), 1, uid, 0))
    for _ in range(3):
        check("ncclAllReduce", all_reduce(comm, stream, buf, 1024))
    t = threading.Thread(target=worker, args=(comm,))
    t.start()
    t.join()
    for _ in range(2):
        check("ncclAllReduce", nccl.ncclAllReduce(buf, buf, ctypes.c_size_t(256), 7, 0, comm, stream))
    check("cuStreamSynchronize", cuda.cuStreamSynchronize(stream))
    check("ncclCommDestroy", nccl.ncclCommDestroy(comm))
    print(json.dumps({"expect": "calls", "origin": "init", "rank": 0, "op": "AllReduce", "n": 3 + 4 + 2}))


main()
