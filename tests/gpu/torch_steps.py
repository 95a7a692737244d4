#!/usr/bin/env python3
"""Training steps under torchrun, for the verdicts and the cost of timing
on GPUs (issues 30 and 32). One process per GPU, PyTorch's NCCL.

  torch_steps.py late STEPS LATE_RANK LATE_MS
      each step: 0.2 ms of host work, LATE_RANK sleeps LATE_MS more, then
      all_reduce of 1 MiB and all_gather_into_tensor of 256 KiB right
      after, then a sync: a rank late at the all-reduce only.
  torch_steps.py hang STEPS HANG_RANK
      the same steps; HANG_RANK stops issuing after half of them and
      sleeps (the job is stopped from outside), the others wait in the
      next all-reduce.
  torch_steps.py ddp STEPS SLOW_RANK SLOW_MS
      DistributedDataParallel over 24 Linear(1024, 1024) layers with
      bucket_cap_mb=1 (about 50 gradient all-reduces of up to 4 MiB a
      step); SLOW_RANK (-1: none) multiplies matrices for SLOW_MS more
      before its backward pass, so it reaches the first gradient
      all-reduce late (a compute straggler, as real ones are).
  torch_steps.py ddp_host STEPS SLOW_RANK SLOW_MS
      the same DDP steps; SLOW_RANK's host sleeps SLOW_MS before every 5th
      step (data loading, a host straggler), on no stream.

With TORCH_STEPS_MARK=1 each step begins with nccltap_step() (the
preloaded shim's, through ctypes), so that the report's steps are the
marks; `nccltap run --step-function train_step` marks the DDP steps from
Python instead; otherwise the report finds them from the collectives
alone.

Prints one JSON line per rank: {"rank", "mode", "steps", "step_ms"
(median over the steps after the first 20), "calls"}; "calls" is the
NCCL collectives this script issued itself (not DDP's); in the DDP modes
also "fwd_ms" and "bwd_ms", the host's time in the forward and in the
backward call, medians likewise (DDP issues its all-reduces from the
backward: a rank whose host is slower there is late at them)."""
import ctypes
import json
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist


def step_marker():
    """nccltap_step of the preloaded shim when TORCH_STEPS_MARK=1, else a
    function that does nothing."""
    if os.environ.get("TORCH_STEPS_MARK") != "1":
        return lambda: None
    return ctypes.CDLL(None).nccltap_step


MARK = step_marker()


def sync_steps(mode, steps, special, late_ms, rank, dev):
    grad = torch.ones(256 * 1024, device=dev)
    part = torch.ones(16 * 1024, device=dev)
    gathered = torch.empty(16 * 1024 * dist.get_world_size(), device=dev)
    times, calls = [], 0
    for i in range(steps):
        t0 = time.perf_counter()
        MARK()
        time.sleep(0.0002)
        if mode == "late" and rank == special:
            time.sleep(late_ms / 1000.0)
        if mode == "hang" and rank == special and i == steps // 2:
            print(json.dumps({"rank": rank, "mode": mode, "stopped_at_step": i}), flush=True)
            time.sleep(3600)
        dist.all_reduce(grad)
        dist.all_gather_into_tensor(gathered, part)
        calls += 2
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return times, calls, {}


def ddp_steps(steps, slow_rank, slow_ms, rank, dev, host=False):
    model = torch.nn.Sequential(*[torch.nn.Linear(1024, 1024) for _ in range(24)]).to(dev)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index], bucket_cap_mb=1)
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-4)
    x = torch.randn(64, 1024, device=dev)
    a = torch.randn(2048, 2048, device=dev)
    # The extra compute: as many 2048^3 products as take slow_ms here.
    reps = 0
    if rank == slow_rank and slow_ms > 0 and not host:
        a @ a  # cuBLAS's first call loads its kernels: not timed
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(20):
            a @ a
        torch.cuda.synchronize()
        reps = max(1, int(slow_ms / 1000.0 / ((time.perf_counter() - t0) / 20)))
    times, host_s = [], {"fwd": [], "bwd": []}
    for i in range(steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        MARK()
        if host and rank == slow_rank and i % 5 == 0:
            time.sleep(slow_ms / 1000.0)
        fwd, bwd = train_step(ddp, opt, x, a, reps)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        host_s["fwd"].append(fwd)
        host_s["bwd"].append(bwd)
    return times, 0, host_s


def train_step(ddp, opt, x, a, reps):
    """One DDP iteration (`nccltap run --step-function train_step` marks a
    step at each call); the host's seconds in the forward and in the
    backward call."""
    opt.zero_grad(set_to_none=True)
    t1 = time.perf_counter()
    y = ddp(x)
    for _ in range(reps):
        a @ a
    t2 = time.perf_counter()
    y.sum().backward()
    t3 = time.perf_counter()
    opt.step()
    return t2 - t1, t3 - t2


def main():
    mode, steps = sys.argv[1], int(sys.argv[2])
    special = int(sys.argv[3]) if len(sys.argv) > 3 else -1
    ms = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", rank)))
    torch.cuda.set_device(dev)
    if mode in ("ddp", "ddp_host"):
        times, calls, host = ddp_steps(steps, special, ms, rank, dev, host=mode == "ddp_host")
    else:
        times, calls, host = sync_steps(mode, steps, special, ms, rank, dev)
    steady = times[20:] if len(times) > 40 else times
    line = {"rank": rank, "mode": mode, "steps": steps, "calls": calls, "step_ms": 1000.0 * statistics.median(steady)}
    for part, t in host.items():  # the host's time in the forward and backward calls
        line[part + "_ms"] = 1000.0 * statistics.median(t[20:] if len(t) > 40 else t)
    print(json.dumps(line) + "\n", end="", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
