#!/usr/bin/env python3
"""NCCL called from Python through ctypes, which loads libnccl.so.2 with
dlopen and finds each function with dlsym on its handle (and releases the
GIL around every call): AllReduce from three lines (the LINE: markers), in
two threads (the main one and a worker), and, with the path of
libc_thread_nccl.so as argument, from a thread of C with no Python frame.

Prints the calls it made, as tests/shim_case.py reads them, and
{"sites": [[marker, calls], ...]} for tests/python_sites_test.py. With
CTYPES_NCCL_GENERATED=N in the environment, N more AllReduces, each from
code of its own (compiled at run time): N lines of Python more than
nccltap's table holds leave calls unread. With CTYPES_NCCL_TRANSIENT=N, N
AllReduces from code objects each freed before the next is made (file
"transient-K", line K + 1): CPython may make the next at the freed one's
address, and each must still be named by its own file and line.
"""
import ctypes
import json
import os
import sys
import threading

cuda = ctypes.CDLL("libcuda.so.1")
nccl = ctypes.CDLL("libnccl.so.2")
P = ctypes.c_void_p
N = {"a": 3, "b": 4, "c": 2, "native": 5}
GENERATED = int(os.environ.get("CTYPES_NCCL_GENERATED", "0"))
TRANSIENT = int(os.environ.get("CTYPES_NCCL_TRANSIENT", "0"))


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


def worker(comm):
    stream, buf = stream_and_buffer()
    for _ in range(N["b"]):
        check("b", nccl.ncclAllReduce(buf, buf, ctypes.c_size_t(512), 7, 0, comm, stream))  # LINE:b
    check("cuStreamSynchronize", cuda.cuStreamSynchronize(stream))


def main():
    check("cuInit", cuda.cuInit(0))
    stream, buf = stream_and_buffer()
    uid = UniqueId()
    comm = P()
    check("ncclGetUniqueId", nccl.ncclGetUniqueId(ctypes.byref(uid)))
    check("ncclCommInitRank", nccl.ncclCommInitRank(ctypes.byref(comm), 1, uid, 0))
    for _ in range(N["a"]):
        check("a", nccl.ncclAllReduce(buf, buf, ctypes.c_size_t(1024), 7, 0, comm, stream))  # LINE:a
    t = threading.Thread(target=worker, args=(comm,))
    t.start()
    t.join()
    for _ in range(N["c"]):
        check("c", nccl.ncclAllReduce(buf, buf, ctypes.c_size_t(256), 7, 0, comm, stream))  # LINE:c
    # Each code object kept alive: a freed one's address may be the next one's.
    generated = [compile("check('generated', nccl.ncclAllReduce(buf, buf, ctypes.c_size_t(64), 7, 0, comm, stream))",
                         "generated-%d" % k, "exec") for k in range(GENERATED)]
    for code in generated:
        exec(code, dict(globals(), buf=buf, comm=comm, stream=stream))
    for k in range(TRANSIENT):
        exec(compile("\n" * k + "check('transient', nccl.ncclAllReduce(buf, buf, ctypes.c_size_t(64), 7, 0, comm, "
                     "stream))", "transient-%d" % k, "exec"), dict(globals(), buf=buf, comm=comm, stream=stream))
    native = len(sys.argv) > 1
    if native:
        check("cuStreamSynchronize", cuda.cuStreamSynchronize(stream))
        fn = ctypes.cast(nccl.ncclAllReduce, P)
        check("c_thread_nccl", ctypes.CDLL(sys.argv[1]).c_thread_nccl(fn, comm, stream, buf, N["native"]))
    check("cuStreamSynchronize", cuda.cuStreamSynchronize(stream))
    check("ncclCommDestroy", nccl.ncclCommDestroy(comm))
    calls = N["a"] + N["b"] + N["c"] + (N["native"] if native else 0) + GENERATED + TRANSIENT
    print(json.dumps({"expect": "calls", "origin": "init", "rank": 0, "op": "AllReduce", "n": calls}))
    print(json.dumps({"sites": sorted(N.items()) if native else sorted((k, v) for k, v in N.items() if k != "native")}))


if __name__ == "__main__":
    main()
