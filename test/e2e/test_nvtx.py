"""NVTX ranges end to end (docs/architecture.md §3.6, §7): the shim records what the programs
annotate, the tools pair it into ranges, nest API calls and their GPU work in them, and capture
windows record only what they select. The expected numbers come from the programs' header comments
(test/programs/nvtx_ranges.cu, train_loop.cu, nvtx_cpu_only.cc) and the fake device's exact
durations: a kernel takes GPROF_FAKE_KERNEL_NS (20 us by default), a copy or set of B bytes
2000 + ceil(B / 10) ns (test/fakes/README.md)."""

import collections
import json
import os
import re
import tempfile
import unittest

from gprof_e2e import (LIBGPROF, E2ETestCase, gpuprof, parse_table, parse_time_ns, program,
                       run_program)

KERNEL_NS = 20000
MIB = 1 << 20


def copy_ns(nbytes):
    return 2000 + (nbytes + 9) // 10


COPY_MIB = copy_ns(MIB)  # nvtx_ranges' copies and set
COPY_GRAD = copy_ns(4096)  # train_loop's cudaMemcpyAsync per step
SCALE = "scale(float*, float, int)"
FORWARD_KERNELS = {"linear_forward(float*, float const*, int)", "relu_forward(float*, int)"}


def dump(path, records):
    out = gpuprof("dump", "--records", records, path).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def range_counts(ranges):
    return collections.Counter((r["kind"], r["name"]) for r in ranges)


def report(path, *args):
    out = gpuprof("report", "--limit", "0", *args, path).stdout
    rows, columns, footer = parse_table(out)
    return rows, out


def assert_time(test, cell, ns, what=""):
    """A table cell shows `ns` up to its printed precision (1.264ms is 1264000 +- 500)."""
    number = re.match(r"-?[0-9]+(?:\.([0-9]+))?", cell)
    scale = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}[cell[number.end():]]
    tolerance = 0.5 * scale / 10 ** len(number.group(1) or "") + 1e-6
    test.assertAlmostEqual(parse_time_ns(cell), ns, delta=tolerance, msg=f"{what}: {cell}")


def innermost_ranges(api, ranges):
    """For each API call, the innermost push/pop range of its thread that encloses it (None
    when there is none): {range name: Counter(API name)}, from the raw records."""
    by_tid = collections.defaultdict(list)
    for r in ranges:
        if r["kind"] == "push_pop":
            by_tid[r["tid"]].append(r)
    found = collections.defaultdict(collections.Counter)
    for call in api:
        enclosing = [r for r in by_tid[call["tid"]]
                     if r["start_ns"] <= call["start_ns"] and call["end_ns"] <= r["end_ns"]]
        inner = max(enclosing, key=lambda r: r["start_ns"], default=None)
        found[inner["name"] if inner else None][call["name"]] += 1
    return found


class NvtxRanges(E2ETestCase):
    """nvtx_ranges: nested ranges on three threads, a range crossing threads, an unbalanced pop,
    a range open at exit, marks, a domain with a registered string and a category."""

    @classmethod
    def setUpClass(cls):
        # One run for the whole class: the tests read it in different ways.
        cls.outdir = tempfile.TemporaryDirectory(prefix="gprof-e2e-")
        cls.run_ = run_program([program("nvtx_ranges")], cls.outdir.name)
        assert cls.run_.returncode == 0, cls.run_.stderr
        assert len(cls.run_.files) == 1, cls.run_.files
        cls.file = cls.run_.files[0]
        cls.ranges = dump(cls.file, "ranges")
        cls.api = dump(cls.file, "api")

    @classmethod
    def tearDownClass(cls):
        cls.outdir.cleanup()

    def test_program_behaves_the_same(self):
        self.assertSameBehaviour([program("nvtx_ranges")], profiled=self.run_)

    def test_every_range_and_mark_once(self):
        self.assertEqual(range_counts(self.ranges), {
            ("push_pop", "main"): 1,
            ("push_pop", "setup"): 1,
            ("push_pop", "worker"): 3,
            ("push_pop", "copy_in"): 3,
            ("push_pop", "compute"): 3,
            ("push_pop", "inner"): 3,
            ("push_pop", "copy_out"): 3,
            ("push_pop", "gprof.test:registered range"): 1,
            ("push_pop", "gprof.test:domain ascii"): 1,
            ("push_pop", "left open"): 1,
            ("start_end", "handoff"): 1,
            ("mark", "begin"): 1,
            ("mark", "worker done"): 3,
        })

    def test_awkward_ranges(self):
        by_name = collections.defaultdict(list)
        for r in self.ranges:
            by_name[r["name"]].append(r)
        (handoff,) = by_name["handoff"]
        self.assertNotEqual(handoff["tid"], handoff["end_tid"], "ended on another thread")
        self.assertLess(handoff["start_ns"], handoff["end_ns"])
        (left_open,) = by_name["left open"]
        self.assertTrue(left_open["open_at_exit"])
        self.assertEqual([r["name"] for r in self.ranges if r["open_at_exit"]], ["left open"])
        # Three worker threads, each with its own nesting; pops never cross threads.
        workers = by_name["worker"]
        self.assertEqual(len({r["tid"] for r in workers}), 3)
        for r in self.ranges:
            if r["kind"] == "push_pop":
                self.assertEqual(r["tid"], r["end_tid"], r)
        for w in workers:
            for name in ("copy_in", "compute", "inner", "copy_out"):
                (child,) = [r for r in by_name[name] if r["tid"] == w["tid"]]
                self.assertTrue(w["start_ns"] <= child["start_ns"] <= child["end_ns"]
                                <= w["end_ns"], (w, child))
        for mark in by_name["worker done"] + by_name["begin"]:
            self.assertEqual(mark["start_ns"], mark["end_ns"])
        out = gpuprof("report", self.file).stdout
        self.assertRegex(out, r"Ranges: .*1 unbalanced pop")
        self.assertRegex(out, r"Ranges: .*1 open at exit")
        self.assertRegex(out, r"Ranges: .*1 ended on another thread")

    def test_api_calls_in_their_innermost_range(self):
        found = innermost_ranges(self.api, self.ranges)
        self.assertEqual(found, {
            "setup": {"cudaMalloc": 1, "cudaMemset": 1},
            "worker": {"cudaMalloc": 3, "cudaFree": 3},
            "copy_in": {"cudaMemcpy": 3},
            "compute": {"cudaLaunchKernel": 6},
            "inner": {"cudaLaunchKernel": 3, "cudaDeviceSynchronize": 3},
            "copy_out": {"cudaMemcpy": 3},
            "gprof.test:registered range": {"cudaMemcpy": 1},
            "gprof.test:domain ascii": {"cudaLaunchKernel": 1},
            "main": {"cudaFree": 1},
            "left open": {"cudaDeviceSynchronize": 1},
        })

    def test_report_range_rows(self):
        rows, _ = report(self.file)
        expected = {  # name: (# of Calls, CUDA total, Self CUDA)
            "main": (1, 2 * COPY_MIB + KERNEL_NS, 0),
            "setup": (1, COPY_MIB, COPY_MIB),
            "worker": (3, 6 * COPY_MIB + 9 * KERNEL_NS, 0),
            "copy_in": (3, 3 * COPY_MIB, 3 * COPY_MIB),
            "compute": (3, 9 * KERNEL_NS, 6 * KERNEL_NS),
            "inner": (3, 3 * KERNEL_NS, 3 * KERNEL_NS),
            "copy_out": (3, 3 * COPY_MIB, 3 * COPY_MIB),
            "gprof.test:registered range": (1, COPY_MIB + KERNEL_NS, COPY_MIB),
            "gprof.test:domain ascii": (1, KERNEL_NS, KERNEL_NS),
            "left open": (1, 0, 0),
        }
        for name, (calls, total, own) in expected.items():
            self.assertIn(name, rows)
            self.assertEqual(rows[name]["# of Calls"], str(calls), name)
            assert_time(self, rows[name]["CUDA total"], total, name + " CUDA total")
            assert_time(self, rows[name]["Self CUDA"], own, name + " Self CUDA")
        self.assertEqual(rows["handoff"]["# of Calls"], "1")
        self.assertEqual(rows["cudaLaunchKernel"]["# of Calls"], "10")
        assert_time(self, rows[SCALE]["CUDA total"], 10 * KERNEL_NS, SCALE)

    def test_report_inside_ranges(self):
        rows, _ = report(self.file, "--range", "compute")
        self.assertEqual(rows["cudaLaunchKernel"]["# of Calls"], "9")
        self.assertEqual(rows["cudaDeviceSynchronize"]["# of Calls"], "3")
        self.assertNotIn("cudaMemcpy", rows)
        assert_time(self, rows[SCALE]["CUDA total"], 9 * KERNEL_NS, SCALE)
        rows, _ = report(self.file, "--range", "worker")
        for name, calls in (("cudaMalloc", 3), ("cudaFree", 3), ("cudaMemcpy", 6),
                            ("cudaLaunchKernel", 9)):
            self.assertEqual(rows[name]["# of Calls"], str(calls), name)
        self.assertNotIn("cudaMemset", rows)


class TrainLoop(E2ETestCase):
    """train_loop: ProfilerStep#i ranges holding forward (2 launches) and backward (3 launches and
    a 4 KiB device-to-device copy), and the capture windows that select parts of it."""

    STEPS = 6

    def run_loop(self, *args, env=None):
        run = self.profile([program("train_loop"), *args], env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(run.files), 1, run.files)
        return run.files[0]

    def step_cuda_totals(self, kernel_ns, env=None):
        path = self.run_loop(env=env)
        ranges = dump(path, "ranges")
        names = [f"ProfilerStep#{i}" for i in range(self.STEPS)]
        expected = {("push_pop", n): 1 for n in names}
        expected.update({("push_pop", "forward"): self.STEPS, ("push_pop", "backward"): self.STEPS})
        self.assertEqual(range_counts(ranges), expected)
        # The GPU work issued inside each step, from the raw records.
        api = dump(path, "api")
        gpu = [g for g in dump(path, "gpu") if g["kind"] != "sync"]
        calls = {c["correlation"]: c for c in api if c["correlation"]}
        step_ns = collections.Counter()
        for g in gpu:
            call = calls[g["api_correlation"]]
            for r in ranges:
                if (r["name"] in names and r["tid"] == call["tid"]
                        and r["start_ns"] <= call["start_ns"] <= r["end_ns"]):
                    step_ns[r["name"]] += g["end_ns"] - g["start_ns"]
        per_step = 5 * kernel_ns + COPY_GRAD
        self.assertEqual(step_ns, {n: per_step for n in names})
        rows, out = report(path)
        for n in names:
            self.assertEqual(rows[n]["# of Calls"], "1", n)
            assert_time(self, rows[n]["CUDA total"], per_step, n)
            assert_time(self, rows[n]["Self CUDA"], 0, n)  # its own call: a synchronize
        assert_time(self, rows["forward"]["CUDA total"], self.STEPS * 2 * kernel_ns, "forward")
        assert_time(self, rows["backward"]["CUDA total"],
                    self.STEPS * (3 * kernel_ns + COPY_GRAD), "backward")
        self.assertEqual(rows["forward"]["# of Calls"], str(self.STEPS))
        self.assertIn(f"Steps: {self.STEPS} ranges", out)

    def test_step_cuda_totals(self):
        self.step_cuda_totals(KERNEL_NS)

    def test_step_cuda_totals_follow_the_kernel_time(self):
        self.step_cuda_totals(35000, env={"GPROF_FAKE_KERNEL_NS": "35000"})

    def test_profiler_api_window(self):
        path = self.run_loop("--profiler-window", "2:4", env={"GPROF_CAPTURE": "cudaProfilerApi"})
        self.assertEqual(range_counts(dump(path, "ranges")), {
            ("push_pop", "ProfilerStep#2"): 1, ("push_pop", "ProfilerStep#3"): 1,
            ("push_pop", "forward"): 2, ("push_pop", "backward"): 2})
        names = collections.Counter(c["name"] for c in dump(path, "api"))
        self.assertEqual(names["cudaLaunchKernel"], 10)
        self.assertEqual(names["cudaMemcpyAsync"], 2)
        self.assertEqual(names["cudaMalloc"], 0)
        kernels = [g for g in dump(path, "gpu") if g["kind"] == "kernel"]
        self.assertEqual(len(kernels), 10)
        assert_gpu_only_in_window(self, path)

    def test_nvtx_window(self):
        path = self.run_loop(env={"GPROF_CAPTURE": "nvtx:forward"})
        self.assertEqual(range_counts(dump(path, "ranges")),
                         {("push_pop", "forward"): self.STEPS})
        names = collections.Counter(c["name"] for c in dump(path, "api"))
        self.assertEqual(names, {"cudaLaunchKernel": 2 * self.STEPS})
        kernels = collections.Counter(g["name"] for g in dump(path, "gpu") if g["kind"] == "kernel")
        self.assertEqual(set(kernels), FORWARD_KERNELS)
        self.assertEqual(sum(kernels.values()), 2 * self.STEPS)
        # Each window closes at forward's pop and the backward launches follow at once, on the
        # same thread: the kinds are off before them.
        assert_gpu_only_in_window(self, path)

    def test_step_schedule(self):
        path = self.run_loop(env={"GPROF_SKIP_STEPS": "2", "GPROF_STEPS": "3"})
        expected = {("push_pop", f"ProfilerStep#{i}"): 1 for i in (2, 3, 4)}
        expected.update({("push_pop", "forward"): 3, ("push_pop", "backward"): 3})
        self.assertEqual(range_counts(dump(path, "ranges")), expected)
        names = collections.Counter(c["name"] for c in dump(path, "api"))
        self.assertEqual(names["cudaLaunchKernel"], 15)
        self.assertEqual(names["cudaDeviceSynchronize"], 3)
        kernels = [g for g in dump(path, "gpu") if g["kind"] == "kernel"]
        self.assertEqual(len(kernels), 15)
        assert_gpu_only_in_window(self, path)


def assert_gpu_only_in_window(test, path):
    """CUPTI collected only while the window was open (issue 15 item 8): no GPU record of a call
    outside it reached the file, and none is unpaired. Before, CUPTI recorded the whole run and
    `info` counted the rest as issued outside the capture window."""
    info = gpuprof("info", path).stdout
    test.assertRegex(info, r"GPU records:\s+\d+ \(.*\); 0 unpaired\n")
    test.assertNotIn("outside the capture window", info)


class TimeWindows(E2ETestCase):
    """GPROF_DELAY / GPROF_DURATION: the writer opens and closes the window every pass."""
    LAUNCHES = 100000
    # 5 ms after every 1000 launches: the run lasts at least 500 ms however fast the launches
    # are, so that a 50 ms window is a small part of it on any machine.
    PAUSE_US = 5000

    def launches(self, env):
        run = self.profile([program("launch_loop"), str(self.LAUNCHES), str(self.PAUSE_US)],
                           env=dict(env, GPROF_FAKE_KERNEL_NS="100", GPROF_BUFFER_SIZE="64M"))
        self.assertEqual(run.returncode, 0, run.stderr)
        if not run.files:
            return []
        return [c for c in dump(run.files[0], "api") if c["name"] == "cudaLaunchKernel"]

    def test_duration_stops_recording(self):
        everything = self.launches({})
        self.assertEqual(len(everything), self.LAUNCHES)
        full_span = everything[-1]["end_ns"] - everything[0]["start_ns"]
        window = self.launches({"GPROF_DURATION": "0.05"})
        self.assertGreater(len(window), 0)
        span = window[-1]["end_ns"] - window[0]["start_ns"]
        # 50 ms plus a writer pass or two (GPROF_FLUSH_INTERVAL_MS=20) to notice, of a run of
        # at least 500 ms. Measured against the full run rather than in absolute time, since a
        # loaded machine (CI, 2 cores, the other suites) stretches both.
        self.assertLess(len(window), 0.6 * self.LAUNCHES)
        self.assertLess(span, 0.6 * full_span, (span, full_span))

    def test_duration_window_collects_gpu_work_inside_only(self):
        # The writer closes the window and turns CUPTI's kinds off in the same step, while the
        # program launches on: (nearly) every recorded launch has its kernel, and (nearly) no
        # kernel of a launch after the close reaches the file. Before, CUPTI recorded all
        # 100000 and the reports left the rest out as "outside the capture window".
        run = self.profile([program("launch_loop"), str(self.LAUNCHES), str(self.PAUSE_US)],
                           env={"GPROF_FAKE_KERNEL_NS": "100", "GPROF_DURATION": "0.05"})
        self.assertEqual(run.returncode, 0, run.stderr)
        info = gpuprof("info", run.files[0]).stdout
        launches = int(re.search(r"cudaLaunchKernel\s+(\d+)", info).group(1))
        kernels = int(re.search(r"GPU records:\s+\d+ \((\d+) kernels", info).group(1))
        self.assertIn("; 0 unpaired", info)
        outside = re.search(r"(\d+) issued outside the capture window", info)
        outside = int(outside.group(1)) if outside else 0
        # A launch that read "recording" just before the close may run after the kinds are off
        # (or, on a loaded machine, a few around the edge): a handful, of thousands.
        self.assertLessEqual(outside, 10, info)
        self.assertGreaterEqual(kernels, launches - 10, info)
        self.assertLess(launches, 0.6 * self.LAUNCHES)

    def test_delay_starts_recording_later(self):
        window = self.launches({"GPROF_DELAY": "0.05"})
        self.assertLess(len(window), self.LAUNCHES)


class CpuOnly(E2ETestCase):
    """nvtx_cpu_only: no CUDA at all, and still a profile of its ranges."""

    def test_ranges_without_cuda(self):
        run = self.profile([program("nvtx_cpu_only"), "4"])
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, "nvtx_cpu_only: 4 rounds\n")
        self.assertEqual(len(run.files), 1, run.stderr)
        path = run.files[0]
        self.assertEqual(range_counts(dump(path, "ranges")), {
            ("push_pop", "outer"): 4, ("push_pop", "inner"): 8,
            ("mark", "start"): 1, ("mark", "end"): 1})
        self.assertEqual(dump(path, "api"), [])
        rows, out = report(path)
        self.assertEqual(rows["outer"]["# of Calls"], "4")
        self.assertEqual(rows["inner"]["# of Calls"], "8")
        self.assertNotIn("CUDA total", out.splitlines()[1])
        outer_total = parse_time_ns(rows["outer"]["CPU total"])
        inner_total = parse_time_ns(rows["inner"]["CPU total"])
        self.assertGreaterEqual(outer_total, 4 * 3e6 * 0.99)  # 3 ms of spinning per round
        self.assertGreaterEqual(inner_total, 8 * 1e6 * 0.99)
        # Self CPU of outer = its time minus its children's (precision: 3 significant places).
        self.assertAlmostEqual(parse_time_ns(rows["outer"]["Self CPU"]) + inner_total,
                               outer_total, delta=outer_total * 0.002)

    def test_names_written_into_one_buffer(self):
        # A name the program formats into the same array each time: the writer interns what the
        # thread sends as text and remembers the address (issue 30 item 3), so the address is
        # found again with other bytes in it; each push must keep its own text.
        run = self.profile([program("nvtx_odd_ranges"), "--one-buffer"])
        self.assertEqual(run.returncode, 0, run.stderr)
        counts = range_counts(dump(run.files[0], "ranges"))
        self.assertEqual(counts, {("push_pop", f"buffer {k}"): 4 for k in range(5)})



class DlopenedByNvtx(E2ETestCase):
    """libgprof.so loaded by NVTX (NVTX_INJECTION64_PATH) rather than preloaded. Its TLS block is
    then in static TLS only if the loader had room; with glibc's optional static TLS turned off
    (glibc.rtld.optional_static_tls=0, glibc manual "Dynamic Linking Tunables") it is dynamic, and
    the hooks must take their general path (collector/queues/static_tls.h): the same ranges either way."""

    def run_dlopened(self, tunables):
        env = {"NVTX_INJECTION64_PATH": LIBGPROF,
               "GPROF_OUTPUT": os.path.join(self.tmp, "dl-%p.gprof")}
        if tunables:
            env["GLIBC_TUNABLES"] = tunables
        run = run_program([program("nvtx_cpu_only"), "4"], self.tmp, preload=False, env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(run.files), 1, run.stderr)
        path = run.files[0]
        self.assertEqual(range_counts(dump(path, "ranges")), {
            ("push_pop", "outer"): 4, ("push_pop", "inner"): 8,
            ("mark", "start"): 1, ("mark", "end"): 1})
        os.remove(path)

    def test_static_tls(self):
        self.run_dlopened(None)

    def test_dynamic_tls(self):
        self.run_dlopened("glibc.rtld.optional_static_tls=0")


if __name__ == "__main__":
    unittest.main()
