"""A small CPU training step for the PyTorch client test (test_torch.py), run
under the shim:

    python torch_train.py OUT.json

Each step runs twice in turn, once under emit_nvtx (what gprof records) and
once under torch.profiler (the oracle), so that both see the same machine: on
a shared 2-core machine separate runs meet different loads and caches. The
emit_nvtx steps also hold a torch.cuda.nvtx range, which torch.profiler does
not see. An unrecorded warm-up step comes first (first calls pay for lazy
initialisation: oneDNN primitives, allocator pools, which would land on
whichever op comes first). OUT.json gets torch.profiler's key_averages()
(count, self and total CPU time of every event, by name and by name and input
shapes, summed over the steps) and each step's self CPU time per event name."""

import json
import sys

import torch
import torch.nn as nn

STEPS = 20


def model():
    torch.manual_seed(0)
    # Big enough that the arithmetic, not the per-op profiling overhead, fills the top ops.
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(16 * 32 * 32, 10))


def train_step(name, net, optimizer, inputs, target, nvtx_range):
    with torch.autograd.profiler.record_function(name):
        if nvtx_range:
            torch.cuda.nvtx.range_push("forward")
        loss = nn.functional.cross_entropy(net(inputs), target)
        if nvtx_range:
            torch.cuda.nvtx.range_pop()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss


def add_averages(totals, prof, group_by_input_shape):
    for e in prof.key_averages(group_by_input_shape=group_by_input_shape):
        shapes = str(e.input_shapes) if group_by_input_shape else ""
        row = totals.setdefault((e.key, shapes), {"name": e.key, "input_shapes": shapes,
                                                  "count": 0, "self_cpu_us": 0.0,
                                                  "cpu_total_us": 0.0})
        row["count"] += e.count
        row["self_cpu_us"] += e.self_cpu_time_total
        row["cpu_total_us"] += e.cpu_time_total


def self_cpu_of_step(prof):
    """Self CPU (us) of each event name inside the session's one step range."""
    events = prof.events()
    step = next(e for e in events if e.name.startswith("step"))
    inside = {}
    for e in events:
        if (e is not step and e.time_range.start >= step.time_range.start
                and e.time_range.end <= step.time_range.end):
            inside[e.name] = inside.get(e.name, 0.0) + e.self_cpu_time_total
    return inside


def main():
    out = sys.argv[1]
    torch.set_num_threads(1)  # no intra-op threads: both see the same ops on one thread
    net = model()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
    inputs = torch.randn(32, 3, 32, 32)
    target = torch.arange(32) % 10
    train_step("warm-up", net, optimizer, inputs, target, nvtx_range=False)
    # No GPU: emit_nvtx synchronizes the device on entry and exit.
    torch.cuda.synchronize = lambda *args, **kwargs: None
    by_name, by_shape, per_step = {}, {}, []
    for step in range(STEPS):
        with torch.autograd.profiler.emit_nvtx(record_shapes=True):
            train_step(f"step{step}", net, optimizer, inputs, target, nvtx_range=True)
        activities = [torch.profiler.ProfilerActivity.CPU]
        with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
            loss = train_step(f"step{step}", net, optimizer, inputs, target, nvtx_range=False)
        add_averages(by_name, prof, False)
        add_averages(by_shape, prof, True)
        per_step.append(self_cpu_of_step(prof))
    result = {"steps": STEPS, "loss": loss.item(), "events": list(by_name.values()),
              "events_by_shape": list(by_shape.values()), "self_cpu_per_step": per_step}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
