"""Capture on the fake runtime: exact call counts, kernel names, per-thread
consistency, and a program that behaves exactly as without the shim."""

import collections
import os
import unittest

from gprof_e2e import E2ETestCase, dump, gpuprof, parse_table, parse_time_ns, program

KERNEL_NS = 20000  # the fake's default kernel duration (test/fakes/README.md)


class VectorAdd(E2ETestCase):
    ITERATIONS = 7

    def setUp(self):
        super().setUp()
        self.args = [program("vector_add"), "--iterations", str(self.ITERATIONS)]
        self.run_ = self.profile(self.args)
        self.assertEqual(self.run_.returncode, 0, self.run_.stderr)
        self.assertEqual(len(self.run_.files), 1)
        self.records = dump(self.run_.files[0])

    def test_behaviour_is_unchanged(self):
        self.assertSameBehaviour(self.args, profiled=self.run_)

    def test_exact_call_counts_per_api(self):
        counts = collections.Counter(r["name"] for r in self.records)
        self.assertEqual(counts, {
            "cudaMalloc": 3, "cudaMemcpy": 3, "cudaLaunchKernel": self.ITERATIONS,
            "cudaDeviceSynchronize": self.ITERATIONS, "cudaMemset": 1, "cudaFree": 3})
        # nvcc's CUDA 13 launch path, not cudaLaunchKernel itself.
        self.assertEqual({r["api"] for r in self.records if r["name"] == "cudaLaunchKernel"},
                         {"__cudaLaunchKernel"})

    def test_launch_arguments(self):
        launches = [r for r in self.records if r["name"] == "cudaLaunchKernel"]
        n = 1 << 20
        for r in launches:
            self.assertEqual(r["kernel"], "_Z10vector_addPKfS0_Pfi")
            self.assertEqual(r["grid"], [(n + 255) // 256, 1, 1])
            self.assertEqual(r["block"], [256, 1, 1])
            self.assertEqual(r["shared_mem"], 0)
            self.assertEqual(r["result"], 0)
        copies = [r for r in self.records if r["name"] == "cudaMemcpy"]
        self.assertEqual([c["copy_kind"] for c in copies], [1, 1, 2])
        self.assertTrue(all(c["bytes"] == n * 4 for c in copies))
        mallocs = [r for r in self.records if r["name"] == "cudaMalloc"]
        frees = [r for r in self.records if r["name"] == "cudaFree"]
        self.assertEqual(sorted(m["address"] for m in mallocs), sorted(f["address"] for f in frees))
        self.assertTrue(all(m["address"] != 0 and m["bytes"] == n * 4 for m in mallocs))

    def test_one_thread_calls_never_overlap_and_durations_are_sane(self):
        calls = sorted(self.records, key=lambda r: r["start_ns"])
        self.assertEqual(len({r["tid"] for r in calls}), 1)
        for a, b in zip(calls, calls[1:]):
            self.assertLessEqual(a["end_ns"], b["start_ns"], (a, b))
        for r in calls:
            self.assertGreaterEqual(r["end_ns"], r["start_ns"])
        # Each synchronize waits for the kernel launched just before it: it cannot return before
        # that launch began plus the kernel's duration. (Not "the synchronize itself lasts
        # KERNEL_NS / 2": on two loaded cores the host can be descheduled between the launch and
        # the synchronize for longer than the kernel runs, and the wait is then short; CI saw
        # 4.2 us once.)
        last_launch = None
        for r in calls:
            if r["name"] == "cudaLaunchKernel":
                last_launch = r
            elif r["name"] == "cudaDeviceSynchronize":
                self.assertIsNotNone(last_launch)
                self.assertGreaterEqual(r["end_ns"], last_launch["start_ns"] + KERNEL_NS, (last_launch, r))

    def test_report_table(self):
        # The memory columns with --profile-memory, as torch's table (without it: no column).
        plain = gpuprof("report", self.run_.files[0]).stdout
        self.assertNotIn("CUDA Mem", plain.splitlines()[1])
        out = gpuprof("report", "--profile-memory", self.run_.files[0]).stdout
        rows, columns, footer = parse_table(out)
        self.assertEqual(columns, ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                                   "CPU time avg", "Self CUDA", "Self CUDA %", "CUDA total",
                                   "CUDA time avg", "CPU Mem", "Self CPU Mem", "CUDA Mem",
                                   "Self CUDA Mem", "# of Calls"])
        self.assertEqual(rows["cudaLaunchKernel"]["# of Calls"], str(self.ITERATIONS))
        self.assertEqual(rows["cudaMalloc"]["# of Calls"], "3")
        self.assertEqual(rows["cudaMemcpy"]["# of Calls"], "3")
        kernel = "vector_add(float const*, float const*, float*, int)"
        self.assertEqual(rows[kernel]["# of Calls"], str(self.ITERATIONS))
        # CPU total of an API row is the sum of its call durations.
        sync_ns = sum(r["end_ns"] - r["start_ns"] for r in self.records
                      if r["name"] == "cudaDeviceSynchronize")
        shown = parse_time_ns(rows["cudaDeviceSynchronize"]["CPU total"])
        self.assertAlmostEqual(shown, sync_ns, delta=max(1000, sync_ns * 0.001))
        total = sum(r["end_ns"] - r["start_ns"] for r in self.records)
        self.assertTrue(footer[0].startswith("Self CPU time total: "), footer)
        shown_total = parse_time_ns(footer[0].split(": ")[1])
        self.assertAlmostEqual(shown_total, total, delta=max(1000, total * 0.001))


class ThreadsAndStreams(E2ETestCase):
    LAUNCHES = 40

    def test_each_thread_records_its_own_calls(self):
        args = [program("threads_streams"), "--launches", str(self.LAUNCHES)]
        run = self.profile(args)
        self.assertEqual(run.returncode, 0, run.stderr)
        records = dump(run.files[0])
        per_thread = collections.defaultdict(collections.Counter)
        streams = collections.defaultdict(set)
        for r in records:
            per_thread[r["tid"]][r["name"]] += 1
            if r["name"] == "cudaLaunchKernel":
                streams[r["tid"]].add(r["stream"])
        workers = [t for t, c in per_thread.items() if c["cudaLaunchKernel"]]
        self.assertEqual(len(workers), 8)
        for t in workers:
            self.assertEqual(per_thread[t]["cudaLaunchKernel"], self.LAUNCHES)
            self.assertEqual(per_thread[t]["cudaMemcpyAsync"], 1)
            self.assertEqual(per_thread[t]["cudaStreamSynchronize"], 1)
            self.assertEqual(len(streams[t]), 1)
            self.assertNotIn(0, streams[t])
        # (Handles of destroyed streams may be reused by later threads, as in CUDA.)
        for t in per_thread:
            calls = sorted((r for r in records if r["tid"] == t), key=lambda r: r["start_ns"])
            for a, b in zip(calls, calls[1:]):
                self.assertLessEqual(a["end_ns"], b["start_ns"])
        self.assertSameBehaviour(args, profiled=run)


class CudaErrors(E2ETestCase):
    def test_failed_calls_are_recorded_with_their_codes(self):
        args = [program("cuda_errors")]
        run = self.profile(args)
        self.assertEqual(run.returncode, 3, run.stderr)
        self.assertSameBehaviour(args, profiled=run)
        records = dump(run.files[0])
        results = collections.defaultdict(list)
        for r in records:
            results[r["name"]].append(r["result"])
        self.assertIn(2, results["cudaMalloc"])   # cudaErrorMemoryAllocation
        self.assertIn(0, results["cudaMalloc"])
        self.assertIn(9, results["cudaLaunchKernel"])  # cudaErrorInvalidConfiguration
        self.assertIn(1, results["cudaFree"])     # cudaErrorInvalidValue
        self.assertIn(1, results["cudaMemcpy"])
        info = gpuprof("info", run.files[0]).stdout
        self.assertIn("cudaErrorMemoryAllocation", info)
        self.assertIn("cudaErrorInvalidConfiguration", info)


class RuntimeBehindLocalDlopen(E2ETestCase):
    """cudart as the dependency of an extension loaded with dlopen(RTLD_LOCAL): outside the global
    scope that dlsym(RTLD_NEXT) searches, while the extension's calls bind to the hooks."""
    ITERATIONS = 3

    def args(self):
        return [program("local_runtime_host"), program("liblocal_runtime_extension.so"),
                "--iterations", str(self.ITERATIONS)]

    def test_calls_reach_the_runtime_and_are_recorded(self):
        run = self.profile(self.args())
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertSameBehaviour(self.args(), profiled=run)
        self.assertIn("failures=0", run.stdout)
        records = dump(run.files[0])
        self.assertEqual(collections.Counter(r["name"] for r in records), {
            "cudaMalloc": 2, "cudaMemcpy": 2, "cudaLaunchKernel": self.ITERATIONS,
            "cudaDeviceSynchronize": self.ITERATIONS, "cudaFree": 2})
        self.assertTrue(all(r["result"] == 0 for r in records))
        # __cudaRegisterFunction reached the runtime (else the launches would fail) and us.
        launches = [r for r in records if r["name"] == "cudaLaunchKernel"]
        self.assertEqual({r["kernel"] for r in launches}, {"_Z5scalePKfPffi"})

    def test_real_runtime_without_driver_returns_its_own_error(self):
        runtime = os.environ.get("GPROF_REAL_CUDART_DIR", "/usr/local/cuda/lib64")
        if not os.path.exists(os.path.join(runtime, "libcudart.so.13")):
            self.skipTest("no real libcudart.so.13")
        if os.path.exists("/dev/nvidiactl"):
            self.skipTest("a driver is present")
        run = self.profile(self.args(), runtime_dir=runtime)
        self.assertSameBehaviour(self.args(), profiled=run, runtime_dir=runtime)
        self.assertNotIn("SharedObjectSymbolNotFound", run.stdout)
        mallocs = [r for r in dump(run.files[0]) if r["name"] == "cudaMalloc"]
        self.assertEqual([r["result"] for r in mallocs], [35, 35])  # cudaErrorInsufficientDriver


class RealRuntimeWithoutDriver(E2ETestCase):
    def test_calls_recorded_with_insufficient_driver(self):
        runtime = os.environ.get("GPROF_REAL_CUDART_DIR", "/usr/local/cuda/lib64")
        if not os.path.exists(os.path.join(runtime, "libcudart.so.13")):
            self.skipTest("no real libcudart.so.13")
        if os.path.exists("/dev/nvidiactl"):
            self.skipTest("a driver is present")
        args = [program("vector_add"), "--iterations", "2"]
        run = self.profile(args, runtime_dir=runtime)
        self.assertSameBehaviour(args, profiled=run, runtime_dir=runtime)
        records = dump(run.files[0])
        self.assertTrue(records)
        mallocs = [r for r in records if r["name"] == "cudaMalloc"]
        self.assertTrue(mallocs)
        self.assertEqual(mallocs[0]["result"], 35)  # cudaErrorInsufficientDriver


if __name__ == "__main__":
    unittest.main()


class TwoRuntimes(E2ETestCase):
    """cudart 12 and 13 in one process (issue 14 item 2): test/programs/two_runtimes.cc uses the
    fake libcudart.so.13 and loads runtime12_extension, linked with the fake libcudart.so.12,
    RTLD_LOCAL. Each side's hooked calls must reach its own runtime (the hooks are exported per
    version node, inject/hook_name.h); with one unversioned set of hooks the extension's calls
    went to cudart 13."""

    def test_each_caller_reaches_its_own_runtime(self):
        args = [program("two_runtimes"), program("libruntime12_extension.so")]
        _, run = self.assertSameBehaviour(args)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("two_runtimes: runtime 13000, cudaMalloc 0, own memory used", run.stdout)
        self.assertIn("runtime12_extension: runtime 12080, cudaMalloc 0, cudaMemset 0, "
                      "cudaFree 0, own memory used", run.stdout)
        self.assertEqual(len(run.files), 1, run.stderr)
        # Each call records the runtime it went to.
        calls = [(c["api"], c["result"], c["runtime"]) for c in dump(run.files[0])]
        v12, v13 = "libcudart.so.12", "libcudart.so.13"
        self.assertEqual(calls, [("cudaMalloc", 0, v13), ("cudaFree", 0, v13),
                                 ("cudaMalloc", 0, v12), ("cudaMemset", 0, v12),
                                 ("cudaFree", 0, v12)])
        self.assertRegex(gpuprof("info", run.files[0]).stdout,
                         r"Runtimes:\s+libcudart.so.12: 3 calls, libcudart.so.13: 2 calls\n")
