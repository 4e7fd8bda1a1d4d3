"""scripts/gpu-ladder: the overhead ladder (issue 30). See the header of scripts/gpu-ladder."""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")

# Each rung: how the program runs. "preload" is gprof unless said otherwise; None: no preload.
RUNGS = [
    ("plain", None, {}),
    ("gprof, GPROF_CUPTI=0", "gprof", {"GPROF_CUPTI": "0"}),
    ("gprof, CUPTI callbacks only", "gprof", {"GPROF_CUPTI_KINDS": "none"}),
    ("gprof, + CONCURRENT_KERNEL", "gprof", {"GPROF_CUPTI_KINDS": "kernel"}),
    ("gprof, + MEMCPY/MEMSET", "gprof", {"GPROF_CUPTI_KINDS": "kernel,memcpy,memset"}),
    ("gprof, + SYNCHRONIZATION (default)", "gprof", {}),
    ("gprof, per-thread buffers", "gprof", {"GPROF_CUPTI_PER_THREAD_BUFFERS": "1"}),
    ("gprof, zeroed buffers", "gprof", {"GPROF_CUPTI_ZEROED_BUFFERS": "1"}),
    ("gprof, 8 MB buffers", "gprof", {"GPROF_CUPTI_BUFFER_SIZE": "8M"}),
    ("gprof, CUPTI's own clock", "gprof", {"GPROF_CUPTI_TIMESTAMP_CALLBACK": "0"}),
    # Diagnostics: what the API callbacks cost beside activity (the minimal client subscribes
    # to none); without the runtime's, no GPU record pairs with its call.
    ("gprof, runtime API callbacks only", "gprof", {"GPROF_CUPTI_CALLBACKS": "runtime"}),
    ("gprof, no API callbacks (unpaired)", "gprof", {"GPROF_CUPTI_CALLBACKS": "none"}),
    ("minimal CUPTI client (floor)", "minimal", {}),
    # What each way of learning a launch's correlation id adds to the floor
    # (test/programs/cupti_minimal.cc): the runtime's launch callbacks, those and the driver's
    # domain, or CUPTI's RUNTIME activity records instead of callbacks.
    ("minimal + launch callbacks", "minimal", {"CUPTI_MINIMAL_CORRELATION": "launch-callback"}),
    ("minimal + driver callbacks", "minimal", {"CUPTI_MINIMAL_CORRELATION": "driver-callbacks"}),
    ("minimal + RUNTIME activity", "minimal", {"CUPTI_MINIMAL_CORRELATION": "runtime-activity"}),
    ("torch.profiler", "torch", {}),
]
# The compute-bound loop only needs to show that nothing is paid there.
SHORT = {"plain", "gprof, + SYNCHRONIZATION (default)", "minimal CUPTI client (floor)",
         "torch.profiler"}


class Workload:
    def __init__(self, name, title, cmd, metric, unit, torch_cmd=None, rungs=None):
        self.name, self.title, self.cmd, self.metric, self.unit = name, title, cmd, metric, unit
        self.torch_cmd = torch_cmd  # the same loop under torch.profiler; None: no such rung
        self.rungs = rungs


def measure(cmd, env, metric):
    """The process's figure, and what the minimal client says it saw ("" for other rungs):
    its kernels, runtime records and callbacks, the evidence that a rung did what it says."""
    completed = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {completed.returncode}: "
                           f"{completed.stderr[-2000:]}")
    m = re.search(metric + r"=([0-9.]+)", completed.stdout)
    if not m:
        raise RuntimeError(f"{' '.join(cmd)} printed no {metric}: {completed.stdout[-500:]}")
    seen = re.search(r"cupti_minimal: .*", completed.stderr)
    return float(m.group(1)), seen.group(0) if seen else ""


def environment(args, preload, extra, work):
    env = dict(os.environ)
    env.pop("CUDA_INJECTION64_PATH", None)
    env["LD_LIBRARY_PATH"] = args.library_path + ":" + env.get("LD_LIBRARY_PATH", "")
    env.update(args.extra_env)
    if preload == "gprof":
        env["LD_PRELOAD"] = os.path.join(args.build, "inject", "libgprof.so")
        env["GPROF_OUTPUT"] = os.path.join(work, "ladder-%p.gprof")
    elif preload == "minimal":
        env["LD_PRELOAD"] = args.minimal
    env.update(extra)
    return env


def run_workload(args, w, work):
    chosen = set(args.rungs.split(";")) | {"plain"} if args.rungs else None
    rungs = [r for r in RUNGS if (w.rungs is None or r[0] in w.rungs)
             and (chosen is None or r[0] in chosen) and (r[1] != "torch" or w.torch_cmd)]
    results = {name: [] for name, _, _ in rungs}
    for rep in range(args.process_reps):  # interleaved: drift hits every rung alike
        for name, preload, extra in rungs:
            cmd = w.torch_cmd if preload == "torch" else w.cmd
            env = environment(args, None if preload == "torch" else preload, extra, work)
            try:
                value, seen = measure(cmd, env, w.metric)
                results[name].append(value)
                # Each process's figure as it comes: a run stopped at its time limit (a lent
                # GPU's minutes) keeps what it measured.
                print(f"  {w.name} process {rep + 1}/{args.process_reps}, {name}: "
                      f"{value:.1f} {w.unit}" + (f" ({seen})" if seen else ""), flush=True)
            except RuntimeError as e:
                print(f"  {name}: failed: {e}", file=sys.stderr)
            for f in os.listdir(work):
                if f.startswith("ladder-"):
                    os.remove(os.path.join(work, f))
    print(f"\n{w.title}")
    print(f"  {'rung':<36} {w.unit:>12} {'over plain':>11} {'over the floor':>15}")
    plain = statistics.median(results["plain"]) if results["plain"] else None
    floor_runs = results.get("minimal CUPTI client (floor)")
    floor = statistics.median(floor_runs) if floor_runs else None
    for name, _, _ in rungs:
        if not results[name]:
            print(f"  {name:<36} {'failed':>12}")
            continue
        value = statistics.median(results[name])
        share = f"{(value / plain - 1) * 100:+.1f}%" if plain else "-"
        over_floor = (f"{(value - floor) / plain * 100:+.1f} pp" if plain and floor is not None
                      and name.startswith("gprof") else "")
        print(f"  {name:<36} {value:12.1f} {share:>11} {over_floor:>15}")


def torch_with_cuda():
    probe = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
                           capture_output=True, text=True)
    return probe.returncode == 0 and probe.stdout.strip() == "True"


def main():
    p = argparse.ArgumentParser(description="gprof's overhead ladder (issue 30)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--fake", action="store_true",
                   help="dry run on test/fakes (no GPU; the PyTorch loops are skipped)")
    p.add_argument("--launches", type=int, default=1_000_000, help="launches of the burst")
    p.add_argument("--pairs", type=int, default=200_000, help="NVTX pairs of the C++ loop")
    p.add_argument("--steps", type=int, default=300, help="steps per repetition (PyTorch)")
    p.add_argument("--process-reps", type=int, default=1,
                   help="processes per rung, interleaved (each PyTorch process runs 3 repetitions)")
    p.add_argument("--workloads", default="burst,nvtx,launch,emit_nvtx,compute")
    p.add_argument("--rungs", help="only these rungs, ';'-separated names as printed (plain is "
                   "always run: the shares are over it)")
    p.add_argument("--minimal", help="libcupti_minimal.so (default: the build's test/programs)")
    args = p.parse_args()
    args.minimal = args.minimal or os.path.join(args.build, "test", "programs",
                                                "libcupti_minimal.so")
    programs = os.path.join(args.build, "test", "programs")
    work = tempfile.mkdtemp(prefix="gprof-ladder-")
    args.extra_env = {}
    try:
        if args.fake:
            fakes = os.path.join(args.build, "test", "fakes")
            args.library_path = ":".join(os.path.join(fakes, d) for d in ("cudart", "cupti", "cuda"))
            args.extra_env = {"GPROF_FAKE_KERNEL_NS": "100"}
            burst = os.path.join(programs, "burst")
        else:
            args.library_path = os.path.join(CUDA_HOME, "lib64")
            burst = os.path.join(work, "burst")
            nvcc = shutil.which("nvcc") or os.path.join(CUDA_HOME, "bin", "nvcc")
            subprocess.run([nvcc, "-O2", "-cudart", "shared", "-o", burst,
                            os.path.join(ROOT, "test", "programs", "burst.cu")], check=True)
        torch_ok = not args.fake and torch_with_cuda()
        script = os.path.join(ROOT, "scripts", "ladder_workload.py")
        py = [sys.executable, script]
        steps = ["--steps", str(args.steps)]
        workloads = {
            "burst": Workload("burst", f"burst: {args.launches} empty-kernel launches, 1 thread "
                              "(ns a launch, the median of 1000-launch batches)",
                              [burst, "1", str(args.launches), "0"], "median_ns_per_launch",
                              "ns/launch"),
            "nvtx": Workload("nvtx", f"NVTX: {args.pairs} push/pop pairs named as emit_nvtx names "
                             "ops, 1 thread (ns a pair)",
                             [burst, "1", "0", str(args.pairs), "--torch-names"],
                             "median_ns_per_pair", "ns/pair"),
            "launch": Workload("launch", "launch-bound PyTorch loop: 16 x (Linear(256) + ReLU), "
                               "batch 64, Adam (median step)", py + ["launch"] + steps,
                               "median_step_us", "us/step",
                               torch_cmd=py + ["launch", "--torch-profiler"] + steps),
            "emit_nvtx": Workload("emit_nvtx", "the same loop under emit_nvtx() (plain: emit_nvtx "
                                  "without a profiler)", py + ["launch", "--emit-nvtx"] + steps,
                                  "median_step_us", "us/step"),
            "compute": Workload("compute", "compute-bound PyTorch loop: 2 x Linear(4096, 8192), "
                                "batch 4096 (median step)", py + ["compute"] + steps,
                                "median_step_us", "us/step",
                                torch_cmd=py + ["compute", "--torch-profiler"] + steps,
                                rungs=SHORT),
        }
        print("overhead ladder (issue 30): each rung the median of its runs; over plain: the "
              "share added to the plain run; over the floor: gprof's cost less the minimal CUPTI "
              "client's, in points of the plain run")
        for name in args.workloads.split(","):
            w = workloads[name]
            if name in ("launch", "emit_nvtx", "compute") and not torch_ok:
                print(f"\n{w.title}\n  skipped: no PyTorch with CUDA here")
                continue
            run_workload(args, w, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
