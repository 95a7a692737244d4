"""A collective mismatch under PyTorch (issue 33): STEPS steps of an
all_reduce of 1 MiB of float32 then an all_gather, as a data-parallel step;
at step MISMATCH_STEP rank 1 calls all_gather_into_tensor where every other
rank calls all_reduce. HOW is `same` (rank 1 gathers 1/world of the tensor
from each rank: the same bytes out, which NCCL may complete with garbage) or
`double` (it gathers the whole tensor from each: world times the bytes,
which NCCL waits on). Run under torchrun with nccltap preloaded, stopped by
a timeout when it hangs; mismatch_gpu.sh drives it.
Usage: torch_mismatch.py STEPS MISMATCH_STEP HOW"""
import datetime
import os
import sys

import torch
import torch.distributed as dist

steps, bad_step, how = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT_S", "60"))))
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
n = 1 << 18  # 1 MiB of float32
grad = torch.ones(n, device="cuda")
small = torch.ones(n // 16, device="cuda")
gathered = torch.empty(n // 16 * world, device="cuda")
for step in range(steps):
    if step == bad_step and rank == 1:
        part = grad[: n // world] if how == "same" else grad
        out = torch.empty(part.numel() * world, device="cuda")
        dist.all_gather_into_tensor(out, part)
    else:
        dist.all_reduce(grad)
    dist.all_gather_into_tensor(gathered, small)
    torch.cuda.synchronize()
    print("rank %d step %d done" % (rank, step), flush=True)
dist.destroy_process_group()
