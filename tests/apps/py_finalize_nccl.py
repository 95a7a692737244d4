#!/usr/bin/env python3
"""The interpreter finalizes while a daemon thread is inside NCCL: the
thread calls AllReduce in a loop of C (libc_thread_nccl.so's
c_nccl_forever, through ctypes, which released the GIL) and never
returns; the main thread makes a few calls of its own, waits until the
daemon's calls have begun, and exits. CPython then frees the daemon's
thread state and frames while it still calls NCCL, whose call sites
nccltap reads from those frames. Must exit 0 as it does without nccltap.
Usage: py_finalize_nccl.py LIBC_THREAD_NCCL"""
import ctypes
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctypes_nccl import P, UniqueId, check, cuda, nccl, stream_and_buffer  # noqa: E402

MAIN_CALLS = 3


def main():
    check("cuInit", cuda.cuInit(0))
    stream, buf = stream_and_buffer()
    uid, comm = UniqueId(), P()
    check("ncclGetUniqueId", nccl.ncclGetUniqueId(ctypes.byref(uid)))
    check("ncclCommInitRank", nccl.ncclCommInitRank(ctypes.byref(comm), 1, uid, 0))
    for _ in range(MAIN_CALLS):
        check("main", nccl.ncclAllReduce(buf, buf, ctypes.c_size_t(256), 7, 0, comm, stream))  # LINE:main
    lib = ctypes.CDLL(sys.argv[1])
    fn = ctypes.cast(nccl.ncclAllReduce, P)

    def daemon():
        lib.c_nccl_forever(fn, comm, stream, buf)  # LINE:daemon

    threading.Thread(target=daemon, daemon=True).start()
    time.sleep(0.2)
    print("exiting with the daemon inside NCCL", flush=True)


main()
