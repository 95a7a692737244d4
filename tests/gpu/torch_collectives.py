"""A PyTorch workload for the GPU suite: known numbers of all_reduce and
all_gather calls through torch.distributed (PyTorch's own NCCL), written to
EXPECTED.rank<R> so analyze.py can compare them with what nccltap saw."""
import json
import os
import sys

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
expected = {}
for n in (1024, 1 << 20, 16 << 20):
    x = torch.ones(n // 4, device="cuda")
    for _ in range(10):
        dist.all_reduce(x)
    expected["AllReduce %d" % n] = 10
    out = [torch.empty_like(x) for _ in range(world)]
    for _ in range(5):
        dist.all_gather(out, x)
    expected["AllGather %d" % (n * world)] = 5
torch.cuda.synchronize()
dist.destroy_process_group()
os.makedirs(os.path.dirname(sys.argv[1]), exist_ok=True)
with open("%s.rank%d" % (sys.argv[1], rank), "w") as f:
    json.dump(expected, f)
