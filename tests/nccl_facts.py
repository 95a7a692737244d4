"""The tests' own copy of nccl-tests' conventions (doc/PERFORMANCE.md there),
written from that document, not from nccltap's code, so that the tests
check preload/nccl/nccl_ops.c against it rather than against itself.
FACTOR: busbw / algbw for n ranks. TRAFFIC: the bytes S an op moves, in
units of the count argument's bytes (n x for the ops whose count is per
rank)."""

FACTOR = {
    "AllReduce": lambda n: 2 * (n - 1) / n, "ReduceScatter": lambda n: (n - 1) / n,
    "AllGather": lambda n: (n - 1) / n, "AlltoAll": lambda n: (n - 1) / n,
    "Gather": lambda n: (n - 1) / n, "Scatter": lambda n: (n - 1) / n,
    "Broadcast": lambda n: 1.0, "Reduce": lambda n: 1.0, "Send": lambda n: 1.0, "Recv": lambda n: 1.0,
}

TRAFFIC = {
    "AllReduce": lambda n: 1, "Broadcast": lambda n: 1, "Reduce": lambda n: 1,
    "AllGather": lambda n: n, "ReduceScatter": lambda n: n,
    "AlltoAll": lambda n: n, "Gather": lambda n: n, "Scatter": lambda n: n,
    "Send": lambda n: 1, "Recv": lambda n: 1,
}
