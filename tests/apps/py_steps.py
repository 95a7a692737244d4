#!/usr/bin/env python3
"""A training loop in Python that calls NCCL through ctypes, for nccltap's
Python step marker (tests/steps_test.py, NCCLTAP_STEP_FUNCTION): NRANKS
processes (forked, as a launcher's would be), each one AllReduce of
set-up, then STEPS calls of train_step() (an AllReduce and an AllGather,
then a wait for its stream), then a last AllReduce outside any step.

Usage: py_steps.py NRANKS STEPS"""
import ctypes
import os
import sys
import traceback

P = ctypes.c_void_p
FLOAT32 = 7
COUNT = 1 << 14


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]  # passed by value


def check(what, r):
    if r != 0:
        raise SystemExit("%s returned %d" % (what, r))


def train_step(nccl, cuda, comm, stream, buf, gathered):
    check("ncclAllReduce", nccl.ncclAllReduce(buf, buf, ctypes.c_size_t(COUNT), FLOAT32, 0, comm, stream))
    check("ncclAllGather", nccl.ncclAllGather(buf, gathered, ctypes.c_size_t(COUNT // 4), FLOAT32, comm, stream))
    check("cuStreamSynchronize", cuda.cuStreamSynchronize(stream))


def rank_main(rank, nranks, uid, steps):
    cuda = ctypes.CDLL("libcuda.so.1")
    nccl = ctypes.CDLL("libnccl.so.2")
    dev, ctx, stream, buf, gathered = ctypes.c_int(), P(), P(), ctypes.c_uint64(), ctypes.c_uint64()
    check("cuInit", cuda.cuInit(0))
    check("cuDeviceGet", cuda.cuDeviceGet(ctypes.byref(dev), rank))
    check("cuDevicePrimaryCtxRetain", cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
    check("cuCtxSetCurrent", cuda.cuCtxSetCurrent(ctx))
    check("cuStreamCreate", cuda.cuStreamCreate(ctypes.byref(stream), 1))
    check("cuMemAlloc_v2", cuda.cuMemAlloc_v2(ctypes.byref(buf), ctypes.c_size_t(4 * COUNT)))
    check("cuMemAlloc_v2", cuda.cuMemAlloc_v2(ctypes.byref(gathered), ctypes.c_size_t(4 * COUNT * nranks)))
    comm = P()
    check("ncclCommInitRank", nccl.ncclCommInitRank(ctypes.byref(comm), nranks, uid, rank))
    b, g = P(buf.value), P(gathered.value)
    check("set-up", nccl.ncclAllReduce(b, b, ctypes.c_size_t(COUNT), FLOAT32, 0, comm, stream))
    for _ in range(steps):
        train_step(nccl, cuda, comm, stream, b, g)
    check("last", nccl.ncclAllReduce(b, b, ctypes.c_size_t(COUNT), FLOAT32, 0, comm, stream))
    check("cuStreamSynchronize", cuda.cuStreamSynchronize(stream))
    check("ncclCommDestroy", nccl.ncclCommDestroy(comm))


def main():
    nranks, steps = int(sys.argv[1]), int(sys.argv[2])
    uid = UniqueId()
    check("ncclGetUniqueId", ctypes.CDLL("libnccl.so.2").ncclGetUniqueId(ctypes.byref(uid)))
    children = []
    for rank in range(1, nranks):
        pid = os.fork()
        if pid == 0:
            code = 1  # a failed check's exit, or any error, is the child's failure
            try:
                rank_main(rank, nranks, uid, steps)
                code = 0
            except SystemExit as e:  # check()'s message, printed as Python would
                if not isinstance(e.code, int):
                    print("rank %d: %s" % (rank, e.code), file=sys.stderr)
                code = e.code if isinstance(e.code, int) and e.code else 1
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        children.append(pid)
    rank_main(0, nranks, uid, steps)
    status = 0
    for pid in children:
        _, st = os.waitpid(pid, 0)
        status |= st
    sys.exit(1 if status else 0)


if __name__ == "__main__":
    main()
