#!/usr/bin/env python3
"""NCCL called through ctypes from a Python sub-interpreter (issue 29, item
14): the main interpreter calls AllReduce from its own line (LINE:main),
then runs tests/apps/subinterp_calls.py in a sub-interpreter, on the main
thread and then on another thread of the main interpreter. Each call is the
line of the interpreter that made it: the sub-interpreter's calls are
subinterp_calls.py's LINE:sub, never in_sub's line here, which ran the
sub-interpreter.

CPython 3.11's _xxsubinterpreters.run_string runs the sub-interpreter on a
thread state its creator made (another thread's, for the second run), and
PyGILState_GetThisThreadState still answers the outer interpreter's; 3.12
(isolated=False: ctypes is a legacy extension) and 3.13 ("legacy", its
module now _interpreters) bind the one that runs.

With the path of libembedded_subinterp.so as its argument, also a
sub-interpreter made and run on a thread of C whose first thread state is
the main interpreter's, which runs nothing meanwhile (an embedding
program's way): its calls are subinterp_calls.py's LINE:sub too.

Prints {"sites": {"main": N, "sub": N}} for tests/python_sites_test.py."""
import ctypes
import json
import os
import sys
import threading

try:
    import _xxsubinterpreters as interpreters
except ImportError:
    import _interpreters as interpreters  # 3.13's name

P = ctypes.c_void_p
CALLS = {"main": 3, "sub_main": 4, "sub_thread": 5, "sub_embedded": 6}


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]


def check(what, r):
    if r != 0:
        raise SystemExit("%s returned %d" % (what, r))


def sub_code(comm, calls):
    here = os.path.dirname(os.path.abspath(__file__))
    return ("import sys\nsys.path.insert(0, %r)\nimport subinterp_calls\n"
            "subinterp_calls.run(%d, %d)\n" % (here, comm, calls))


def in_sub(interp, comm, calls):
    interpreters.run_string(interp, sub_code(comm, calls))


def main():
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
    b = P(buf.value)
    for _ in range(CALLS["main"]):
        check("main", nccl.ncclAllReduce(b, b, ctypes.c_size_t(256), 7, 0, comm, stream))  # LINE:main
    check("cuStreamSynchronize", cuda.cuStreamSynchronize(stream))
    try:
        interp = interpreters.create(isolated=False)
    except TypeError:
        # 3.11: no isolated=, legacy; 3.13: a config's name
        interp = interpreters.create("legacy") if interpreters.__name__ == "_interpreters" else interpreters.create()
    in_sub(interp, comm.value, CALLS["sub_main"])
    t = threading.Thread(target=lambda: in_sub(interp, comm.value, CALLS["sub_thread"]))
    t.start()
    t.join()
    interpreters.destroy(interp)
    if len(sys.argv) > 1:
        embedded = ctypes.CDLL(sys.argv[1])
        check("embedded_subinterp_run",
              embedded.embedded_subinterp_run(sub_code(comm.value, CALLS["sub_embedded"]).encode()))
    else:
        del CALLS["sub_embedded"]
    check("ncclCommDestroy", nccl.ncclCommDestroy(comm))
    calls = sum(CALLS.values())
    print(json.dumps({"expect": "calls", "origin": "init", "rank": 0, "op": "AllReduce", "n": calls}))
    print(json.dumps({"sites": {"main": CALLS["main"], "sub": calls - CALLS["main"]}}))


if __name__ == "__main__":
    main()
