"""The PyTorch loops of the overhead ladder (scripts/gpu_ladder.py, issue 30).

  launch   16 x (Linear(256, 256) + ReLU), batch 64, MSE loss, Adam: ~125 kernels a step, each
           short: the host's launch path is the step time (launch-bound)
  compute  2 x Linear(4096, 8192), batch 4096: the GPU is the step time (compute-bound)

--emit-nvtx wraps the steps in torch.autograd.profiler.emit_nvtx() (~800 NVTX ranges a step,
each name unique: "aten::addmm, seq = N, op_id = M"); --torch-profiler in torch.profiler.profile
with CPU and CUDA activities. Prints `median_step_us=X`: the median over REPS repetitions of
STEPS steps (each ended by a synchronize) of the mean step time, after WARMUP steps."""

import argparse
import contextlib
import statistics
import time

import torch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model", choices=["launch", "compute"])
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--emit-nvtx", action="store_true")
    p.add_argument("--torch-profiler", action="store_true")
    a = p.parse_args()
    torch.manual_seed(0)
    if a.model == "launch":
        layers = []
        for _ in range(16):
            layers += [torch.nn.Linear(256, 256), torch.nn.ReLU()]
        model, batch, width, out = torch.nn.Sequential(*layers), 64, 256, 256
    else:
        model = torch.nn.Sequential(torch.nn.Linear(4096, 8192), torch.nn.Linear(8192, 4096))
        batch, width, out = 4096, 4096, 4096
    model = model.cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    x = torch.randn(batch, width, device="cuda")
    y = torch.randn(batch, out, device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()

    for _ in range(a.warmup):
        step()
    torch.cuda.synchronize()
    around = contextlib.nullcontext()
    if a.emit_nvtx:
        around = torch.autograd.profiler.emit_nvtx()
    elif a.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        around = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    means = []
    with around:
        for _ in range(a.reps):
            t0 = time.perf_counter()
            for _ in range(a.steps):
                step()
            torch.cuda.synchronize()
            means.append((time.perf_counter() - t0) / a.steps * 1e6)
    print(f"median_step_us={statistics.median(means):.1f}")


if __name__ == "__main__":
    main()
