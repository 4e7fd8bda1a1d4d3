"""scripts/gpu-probe: what the real CUPTI, runtime and driver answer (issue 29 item 2).

Runs each case of test/programs/cupti_probe (one process per case) and, where PyTorch can use the
GPU, torch.profiler under test/programs/cupti_call_log (kineto's real CUPTI calls and their
answers), alone and in front of libgprof.so. Writes one JSON file: the machine it ran on and the
answers. test/unit/fakes/test_probe_replay.py replays a checked-in copy against the fakes.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

CASES = ["flush_order", "subscribe", "attributes", "callbacks", "records", "finalize", "clock",
         "per_thread"]
COST_MODES = ["none", "callbacks", "kernel", "kernel_shared", "kernel_zeroed", "kernel_sync"]

TORCH_PROFILED = r'''
import torch
from torch.profiler import profile, ProfilerActivity
x = torch.randn(256, 256, device="cuda")
for _ in range(3):
    x = torch.relu(x @ x); x = x / x.norm()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(5):
        x = torch.relu(x @ x); x = x / x.norm()
    torch.cuda.synchronize()
kernels = sum(e.count for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA)
print("torch_profiler_cuda_events", kernels, flush=True)
for _ in range(5):
    x = torch.relu(x @ x); x = x / x.norm()
torch.cuda.synchronize()
'''


def run_case(probe, args, env):
    p = subprocess.run([probe, *args], env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return {"error": f"exit {p.returncode}", "stderr": p.stderr[-2000:]}
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        return {"error": "not JSON", "stdout": p.stdout[-2000:], "stderr": p.stderr[-2000:]}


def machine():
    out = {"date": datetime.date.today().isoformat()}
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30).stdout.strip().splitlines()
        if q:
            out["gpu"], out["driver"] = [s.strip() for s in q[0].split(",")[:2]]
    except (OSError, subprocess.SubprocessError):
        out["gpu"] = "unknown (no nvidia-smi)"
    return out


def torch_under(call_log, gprof_lib, library_path, work):
    script = os.path.join(work, "probe_torch.py")
    open(script, "w").write(TORCH_PROFILED)
    env = dict(os.environ)
    env["LD_PRELOAD"] = call_log + (":" + gprof_lib if gprof_lib else "")
    env["LD_LIBRARY_PATH"] = library_path + ":" + env.get("LD_LIBRARY_PATH", "")
    if gprof_lib:
        env["GPROF_OUTPUT"] = os.path.join(work, "probe-torch-%p.gprof")
    p = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True, timeout=300)
    lines = p.stdout.splitlines() + p.stderr.splitlines()
    calls = [l[len("cupti_call_log: "):] for l in lines if l.startswith("cupti_call_log: ")]
    other = [l for l in lines if not l.startswith("cupti_call_log: ")]
    events = [l.split()[-1] for l in lines if l.startswith("torch_profiler_cuda_events")]
    return {"exit": p.returncode, "cupti_calls": calls,
            "torch_profiler_cuda_events": int(events[0]) if events else None,
            "other_output": other[-40:]}


def main():
    parser = argparse.ArgumentParser(description="what the real CUPTI answers, as JSON")
    parser.add_argument("--probe", required=True, help="cupti_probe binary")
    parser.add_argument("--call-log", help="libcupti_call_log.so (torch.profiler's CUPTI calls)")
    parser.add_argument("--gprof-lib", help="libgprof.so, to log kineto's calls under gprof too")
    parser.add_argument("--library-path", default="/usr/local/cuda/lib64")
    parser.add_argument("--no-cost", action="store_true", help="skip the launch_cost timings")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = args.library_path + ":" + env.get("LD_LIBRARY_PATH", "")
    result = {"machine": machine(), "cases": {}}
    for case in CASES:
        result["cases"][case] = run_case(args.probe, [case], env)
    if not args.no_cost:
        result["launch_cost"] = {m: run_case(args.probe, ["launch_cost", m], env) for m in COST_MODES}
    if args.call_log:
        # Scratch (the torch script, gprof's file) in a folder of its own: the folder of the
        # output is often a device call's $OUT, which brings back only a few files.
        work = tempfile.mkdtemp(prefix="gprof-probe-")
        try:
            import torch  # noqa: F401
            have_torch = True
        except ImportError:
            have_torch = False
        if have_torch:
            result["torch_profiler_alone"] = torch_under(args.call_log, None, args.library_path, work)
            if args.gprof_lib:
                result["torch_profiler_under_gprof"] = torch_under(args.call_log, args.gprof_lib,
                                                                   args.library_path, work)
    with open(args.output, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print(json.dumps(result, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
