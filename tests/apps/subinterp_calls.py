"""What tests/apps/subinterp_nccl.py runs inside a Python sub-interpreter:
AllReduces through ctypes from one line (the LINE: marker), on the thread
that runs it, with its own CUDA context current, stream and buffer."""
import ctypes

P = ctypes.c_void_p


def check(what, r):
    if r != 0:
        raise SystemExit("%s returned %d" % (what, r))


def run(comm, calls):
    cuda = ctypes.CDLL("libcuda.so.1")
    nccl = ctypes.CDLL("libnccl.so.2")
    dev, ctx, stream, buf = ctypes.c_int(), P(), P(), ctypes.c_uint64()
    check("cuDeviceGet", cuda.cuDeviceGet(ctypes.byref(dev), 0))
    check("cuDevicePrimaryCtxRetain", cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
    check("cuCtxSetCurrent", cuda.cuCtxSetCurrent(ctx))
    check("cuStreamCreate", cuda.cuStreamCreate(ctypes.byref(stream), 1))
    check("cuMemAlloc_v2", cuda.cuMemAlloc_v2(ctypes.byref(buf), ctypes.c_size_t(1 << 16)))
    b, c = P(buf.value), P(comm)
    for _ in range(calls):
        check("sub", nccl.ncclAllReduce(b, b, ctypes.c_size_t(128), 7, 0, c, stream))  # LINE:sub
    check("cuStreamSynchronize", cuda.cuStreamSynchronize(stream))
