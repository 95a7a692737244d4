"""CUDA graphs on a GPU (issue 23): PyTorch, one rank, captures an
out-of-place all_gather_into_tensor (with one rank NCCL copies, which the
replays' data shows) and an all_reduce (with one rank PyTorch still calls
NCCL, which does nothing in place; reduce_scatter_tensor it does not pass
to NCCL at all on one rank) into a torch.cuda.CUDAGraph and replays it N
times. cudaGraphLaunch reaches the
driver through cuGetProcAddress, which nccltap answers.

Run under nccltap (one process, or torchrun's ranks, each on its
LOCAL_RANK's GPU), then check each rank file:
  nccltap run --dir OUT -- python3 torch_graph.py [N]
  python3 torch_graph.py --check OUT [N]
The first prints one JSON line: the replays, and per op the captures and
the executions nccltap should count (captures x replays); the warm-up calls
are ordinary calls. --check compares OUT's rank file with that and exits 1
on a mismatch."""
import glob
import json
import os
import sys

OPS = {"AllGather": 1, "AllReduce": 1}  # captures per graph
WARMUP = 3


def expected(n):
    return {op: {"captured": k, "executions": k * n, "eager_calls": WARMUP * k} for op, k in OPS.items()}


def run(n):
    import torch
    import torch.distributed as dist

    for k, v in (("MASTER_ADDR", "127.0.0.1"), ("MASTER_PORT", "29511"), ("RANK", "0"), ("WORLD_SIZE", "1")):
        os.environ.setdefault(k, v)
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl", init_method="env://")
    x = torch.arange(1 << 20, dtype=torch.float32, device="cuda")
    world = dist.get_world_size()
    gathered = torch.empty(world * x.numel(), dtype=x.dtype, device="cuda")
    reduced = torch.ones(1 << 20, dtype=torch.float32, device="cuda")

    def step():
        dist.all_gather_into_tensor(gathered, x)
        dist.all_reduce(reduced)

    side = torch.cuda.Stream()  # warm up off the capture: NCCL connects lazily
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(WARMUP):
            step()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    gathered.zero_()
    for _ in range(n):
        graph.replay()
    torch.cuda.synchronize()
    if not torch.equal(gathered, x.repeat(world)):
        sys.exit("the replays did not copy: the graph is not what was captured")
    # Not destroy_process_group(): with 2 ranks on PyTorch 2.11 it hangs
    # after a graph capture, with or without nccltap (an H200 pair, 45 s).
    print(json.dumps({"replays": n, "ops": expected(n)}))


def check(out, n):
    files = glob.glob(os.path.join(out, "*.json"))
    if not files:
        sys.exit("%s: no rank file" % out)
    bad = 0
    for path in files:
        rows = json.load(open(path))["ops"]
        for op, want in expected(n).items():
            got = {k: sum(r.get(k, 0) for r in rows if r["op"] == op) for k in ("calls", "captured", "executions")}
            ok = got["captured"] == want["captured"] and got["executions"] == want["executions"] and \
                got["calls"] == want["captured"] + want["eager_calls"]
            print("%s %s %s: nccltap %s, expected %s" % ("ok" if ok else "FAIL", os.path.basename(path), op, got,
                                                          want))
            bad += not ok
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--check":
        check(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 200)
    else:
        run(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
