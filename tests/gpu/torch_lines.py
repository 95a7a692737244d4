#!/usr/bin/env python3
"""Python call sites on a GPU (issue 25): one process, one GPU, PyTorch's
NCCL, collectives from several lines (the LINE: markers) of this script.
Run under the shim (LD_PRELOAD=libnccltap.so, NCCLTAP_DIR=OUT); `nccltap
report OUT` must name each line with its calls. Prints {"lines": {marker:
[line, calls]}} for the check.

    LD_PRELOAD=PREFIX/lib/libnccltap.so NCCLTAP_DIR=OUT python3 torch_lines.py
"""
import json
import os
import re

import torch
import torch.distributed as dist

CALLS = {"all_reduce": 5, "all_gather": 3, "broadcast": 4}


def main():
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29531")
    dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda:0"))
    x = torch.ones(1 << 20, device="cuda")
    out = torch.empty(1 << 20, device="cuda")
    for _ in range(CALLS["all_reduce"]):
        dist.all_reduce(x)  # LINE:all_reduce
    for _ in range(CALLS["all_gather"]):
        dist.all_gather_into_tensor(out, x)  # LINE:all_gather
    for _ in range(CALLS["broadcast"]):
        dist.broadcast(x, src=0)  # LINE:broadcast
    torch.cuda.synchronize()
    dist.destroy_process_group()
    lines = {}
    with open(__file__) as f:
        for number, text in enumerate(f, 1):
            m = re.search(r"# LINE:(\w+)$", text.rstrip())
            if m:
                lines[m.group(1)] = [number, CALLS[m.group(1)]]
    print(json.dumps({"lines": lines}))


main()
