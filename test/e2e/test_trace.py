"""gpuprof trace on files the shim really wrote: every trace must be valid
trace-event JSON (what Perfetto and Chrome DevTools read), hold what the
report counts, and cut and fail as documented (docs/trace.md)."""

import gzip
import json
import os
import re
import stat
import subprocess
import unittest

from gprof_e2e import GPUPROF, E2ETestCase, dump, gpuprof, program

SLICE_CATEGORIES = {"cuda_runtime", "cuda_driver", "user_annotation", "kernel", "gpu_memcpy", "cuda_sync",
                    "gpu_memset"}
GPU_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset"}


class Trace(E2ETestCase):
    def record(self, name, *args, outdir=None):
        run = self.profile([program(name), *args],
                           env={"GPROF_OUTPUT": os.path.join(outdir or self.tmp, "run-%p.gprof")})
        self.assertEqual(run.returncode, 0, run.stderr)
        files = [f for f in os.listdir(outdir or self.tmp) if f.endswith(".gprof")]
        self.assertTrue(files)
        return run.files or sorted(os.path.join(outdir, f) for f in files)

    def trace(self, *inputs, options=(), out="trace.json"):
        path = os.path.join(self.tmp, out)
        gpuprof("trace", *inputs, "-o", path, *options)
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            trace = json.load(f)
        self.check_valid(trace)
        return trace

    def check_valid(self, trace):
        """The trace-event format: fields per phase, categories, flows that pair, and time
        order per track and per counter."""
        self.assertEqual(trace["otherData"]["schema"], "gprof.trace")
        flows = {"s": {}, "f": {}}
        track_ts, counter_ts = {}, {}
        for e in trace["traceEvents"]:
            for field in ("name", "ph", "pid", "tid", "ts"):
                self.assertIn(field, e, e)
            ph = e["ph"]
            self.assertIn(ph, ("X", "M", "C", "s", "f", "b", "e", "i"), e)
            if ph == "X":
                self.assertGreaterEqual(e["dur"], 0, e)
                self.assertIn(e["cat"], SLICE_CATEGORIES, e)
            if ph in ("s", "f"):
                self.assertEqual((e["cat"], e["name"]), ("ac2g", "ac2g"), e)
                self.assertNotIn(e["id"], flows[ph], f"two flow {ph} events with id {e['id']}")
                flows[ph][e["id"]] = e
            if ph in ("b", "e", "i"):
                self.assertEqual(e["cat"], "user_annotation", e)
            if ph in ("b", "e"):
                self.assertIn("id", e)
            if ph == "M":
                continue
            if ph == "C":
                key = (e["pid"], e["name"])
                self.assertGreaterEqual(e["ts"], counter_ts.get(key, e["ts"]), e)
                counter_ts[key] = e["ts"]
                continue
            key = (e["pid"], e["tid"])
            self.assertGreaterEqual(e["ts"], track_ts.get(key, e["ts"]), e)
            track_ts[key] = e["ts"]
        self.assertEqual(set(flows["s"]), set(flows["f"]))
        self.check_nested(trace)
        for flow_id, start in flows["s"].items():
            end = flows["f"][flow_id]
            self.assertGreaterEqual(end["ts"], start["ts"])
            self.assertEqual(end["bp"], "e")

    def check_nested(self, trace):
        """Slices of one track nest (Perfetto and DevTools drop or misdraw slices that
        overlap in part), to the nanosecond the document gives."""
        tracks = {}
        for e in trace["traceEvents"]:
            if e["ph"] == "X":
                start = round(e["ts"] * 1000)
                tracks.setdefault((e["pid"], e["tid"]), []).append(
                    (start, start + round(e["dur"] * 1000), e["name"]))
        for key, slices in tracks.items():
            slices.sort(key=lambda s: (s[0], -s[1]))
            open_ends = []
            for start, end, name in slices:
                while open_ends and open_ends[-1][0] <= start:
                    open_ends.pop()
                if open_ends:
                    self.assertLessEqual(end, open_ends[-1][0],
                                         f"{name!r} overlaps {open_ends[-1][1]!r} on {key}")
                open_ends.append((end, name))

    @staticmethod
    def events(trace, ph, cat=None):
        return [e for e in trace["traceEvents"]
                if e["ph"] == ph and (cat is None or e.get("cat") == cat)]

    def report_kernels(self, *inputs):
        report = json.loads(gpuprof("report", "--format", "json", "--limit", "0", *inputs).stdout)
        return sum(r["count"] for r in report["rows"] if r["kind"] == "kernel")

    def test_train_loop(self):
        files = self.record("train_loop", "--steps", "3")
        trace = self.trace(*files)
        kernels = self.events(trace, "X", "kernel")
        self.assertEqual(len(kernels), self.report_kernels(*files))
        self.assertEqual(len(kernels), 15)  # 5 launches per step
        self.assertEqual({k["dur"] for k in kernels}, {20.0})  # GPROF_FAKE_KERNEL_NS's default
        with open(os.path.join(self.tmp, "trace.json"), encoding="utf-8") as f:
            self.assertEqual(f.read().count('"cat":"kernel"'), 15)
        with open(os.path.join(self.tmp, "trace.json"), encoding="utf-8") as f:
            text = f.read()
        self.assertEqual(text.count('"dur":20.000,'), 15, "times in us with 3 decimals")
        # A flow from each launch to its kernel.
        launches = [e for e in self.events(trace, "X", "cuda_runtime")
                    if e["name"] == "cudaLaunchKernel"]
        self.assertEqual(len(launches), 15)
        # And the 5 copies: HtoD, DtoD in each step, DtoH.
        self.assertEqual(len(self.events(trace, "s")), 15 + 5)
        ranges = [e["name"] for e in self.events(trace, "X", "user_annotation")]
        self.assertEqual(ranges.count("forward"), 3)
        self.assertIn("ProfilerStep#2", ranges)
        # cudaMalloc x3 of 64 KiB each, freed at the end.
        memory = [e["args"]["bytes"] for e in self.events(trace, "C")
                  if e["name"] == "device memory in use"]
        self.assertEqual(max(memory), 3 * 65536)
        self.assertEqual(memory[-1], 0)
        busy = [e["args"]["%"] for e in self.events(trace, "C") if e["name"] == "GPU busy"]
        self.assertTrue(busy and all(0 <= b <= 100 for b in busy), busy)
        names = {e["args"]["name"] for e in self.events(trace, "M")
                 if e["name"] == "process_name"}
        pid = trace["otherData"]["files"][0]["pid"]
        # No launcher, no rank, and no pid: viewers show it beside the name.
        self.assertIn("train_loop", names)
        self.assertNotIn("distributedInfo", trace)
        # What kineto writes beside the events: ts 0 in wall time, the GPUs. Calls carry their
        # stream's handle, never "stream" (the integer id of GPU work to kineto's readers).
        self.assertEqual(trace["schemaVersion"], 1)
        report = json.loads(gpuprof("report", "--format", "json", *files).stdout)
        start_wall = report["files"][0]["start_wall_ns"]
        # The first call may precede the file's start (the writer starts at CUDA's init).
        self.assertAlmostEqual(trace["baseTimeNanoseconds"], start_wall, delta=10**9)
        self.assertEqual([d["id"] for d in trace["deviceProperties"]], [0])
        self.assertTrue(all("stream" not in e["args"] and "stream handle" in e["args"]
                            for e in launches))
        self.assertTrue(all(isinstance(e["args"]["stream"], int)
                            for e in kernels))
        self.assertTrue(any(n.startswith("GPU 0") and n.endswith(f"(pid {pid})") for n in names),
                        names)

    def test_steps_as_kineto_writes_them(self):
        """Issue 32 item 3: HTA splits a trace into iterations by kineto's ProfilerStep#N
        annotations ("ProfilerStep not found in the trace" without). Steps named so already get
        nothing more; steps found by --step get a ProfilerStep#N over each, on their thread."""
        files = self.record("train_loop", "--steps", "3")
        trace = self.trace(*files)
        names = [e["name"] for e in self.events(trace, "X", "user_annotation")]
        self.assertEqual(sorted(n for n in names if n.startswith("ProfilerStep")),
                         ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"])
        trace = self.trace(*files, options=("--step", "forward"), out="steps.json")
        ranges = self.events(trace, "X", "user_annotation")
        forward = sorted((e["ts"], e["dur"], e["tid"]) for e in ranges if e["name"] == "forward")
        steps = sorted((e["ts"], e["dur"], e["tid"], e["name"]) for e in ranges
                       if re.fullmatch(r"ProfilerStep#\d+", e["name"]))
        self.assertEqual(len(forward), 3)
        added = [s for s in steps if (s[0], s[1], s[2]) in forward]
        self.assertEqual([s[3] for s in added], ["ProfilerStep#0", "ProfilerStep#1",
                                                 "ProfilerStep#2"])

    def test_no_event_at_ts_0(self):
        """Chrome DevTools drops an event at ts 0: the first one is at 1us, metadata too, and
        every other event keeps its distance to it (docs/trace.md)."""
        files = self.record("train_loop", "--steps", "2")
        trace = self.trace(*files)
        times = [e["ts"] for e in trace["traceEvents"]]
        self.assertNotIn(0, times)
        self.assertEqual(min(times), 1.0)
        self.assertEqual({e["ts"] for e in self.events(trace, "M")}, {1.0})
        first_record = min(e["ts"] for e in trace["traceEvents"] if e["ph"] != "M")
        self.assertEqual(first_record, 1.0)
        self.assertEqual(trace["otherData"]["time_origin"] + 1000,
                         min(r["start_ns"] for r in dump(files[0])))
        busy = [e["ts"] for e in self.events(trace, "C") if e["name"] == "GPU busy"]
        self.assertTrue(busy)
        self.assertTrue(all(round((t - 1.0) * 1000) % 1_000_000 == 0 for t in busy), busy)

    def test_names_leave_the_pid_to_the_viewer(self):
        def names(trace, what):
            return {(e["pid"], e["tid"]): e["args"]["name"] for e in self.events(trace, "M")
                    if e["name"] == what}

        trace = self.trace(*self.record("vector_add", "--iterations", "1"))
        pid = trace["otherData"]["files"][0]["pid"]
        self.assertEqual(names(trace, "process_name")[(pid, 0)], "vector_add")
        self.assertEqual(names(trace, "thread_name")[(pid, pid)], "main thread")

        trace = self.trace(*self.record("threads_streams", "--launches", "2"), out="threads.json")
        pid = trace["otherData"]["files"][0]["pid"]
        threads = {tid: n for (p, tid), n in names(trace, "thread_name").items() if p == pid}
        self.assertEqual(len(threads), 8)
        self.assertEqual(threads, {tid: f"thread {tid}" for tid in threads})
        gpus = [n for (p, _), n in names(trace, "process_name").items() if p != pid]
        # A GPU's trace process has a number of its own: its name says whose it is.
        self.assertEqual(len(gpus), 1)
        self.assertTrue(gpus[0].startswith("GPU 0") and gpus[0].endswith(f" (pid {pid})"), gpus)

    def test_graph_launch_flows_to_every_node(self):
        files = self.record("graph_launch")
        trace = self.trace(*files)
        kernels = self.events(trace, "X", "kernel")
        self.assertEqual(len(kernels), self.report_kernels(*files))
        self.assertEqual(len(kernels), 20)
        graph_calls = {(e["pid"], e["tid"], e["ts"]) for e in self.events(trace, "X", "cuda_runtime")
                       if e["name"] == "cudaGraphLaunch"}
        self.assertEqual(len(graph_calls), 5)
        from_graphs = [s for s in self.events(trace, "s")
                       if (s["pid"], s["tid"], s["ts"]) in graph_calls]
        self.assertEqual(len(from_graphs), 20)

    def test_external_mode_flows_only_through_external_correlations(self):
        # Under another tool's subscriber gprof pairs through its pushed ids: the 6 driver
        # launches it cannot see get no flow, whatever CUPTI id they carry; the 40 cudaMemset
        # calls flow to their sets.
        run = self.profile([program("driver_launch"), "--launches", "5", "--runtime-sets", "40"],
                           env={"GPROF_FAKE_CUPTI": "subscriber_taken",
                                "GPROF_OUTPUT": os.path.join(self.tmp, "run-%p.gprof")})
        self.assertEqual(run.returncode, 0, run.stderr)
        trace = self.trace(*run.files)
        self.assertEqual(len(self.events(trace, "X", "kernel")), 6)
        flows_to = {(f["pid"], f["tid"], f["ts"]) for f in self.events(trace, "f")}
        kernels = {(k["pid"], k["tid"], k["ts"]) for k in self.events(trace, "X", "kernel")}
        self.assertEqual(flows_to & kernels, set())
        sets = [e for e in self.events(trace, "X", "gpu_memset")]
        self.assertEqual(len(sets), 40)
        self.assertEqual(len(self.events(trace, "s")), 40)

    def test_torch_ops_carry_sequence_number_and_input_dims(self):
        run = self.profile([program("burst"), "1", "0", "5", "--torch-names"],
                           env={"GPROF_OUTPUT": os.path.join(self.tmp, "run-%p.gprof")})
        self.assertEqual(run.returncode, 0, run.stderr)
        trace = self.trace(*run.files)
        ops = [e for e in self.events(trace, "X", "user_annotation") if e["name"] == "aten::add"]
        self.assertEqual(len(ops), 5)
        self.assertEqual([o["args"]["Sequence number"] for o in ops], [0, 1, 2, 3, 4])
        self.assertTrue(all(o["args"]["Input Dims"] == "[[2, 3], [2, 3]]" for o in ops), ops)

    def test_threads_and_streams(self):
        files = self.record("threads_streams", "--launches", "10")
        trace = self.trace(*files)
        kernels = self.events(trace, "X", "kernel")
        self.assertEqual(len(kernels), 80)
        self.assertEqual(len(kernels), self.report_kernels(*files))
        self.assertEqual(len({k["tid"] for k in kernels}), 8)  # a track per stream
        launch_threads = {e["tid"] for e in self.events(trace, "X", "cuda_runtime")
                          if e["name"] == "cudaLaunchKernel"}
        self.assertEqual(len(launch_threads), 8)
        streams = {e["args"]["name"] for e in self.events(trace, "M") if e["name"] == "thread_name"
                   and e["args"]["name"].startswith("stream ")}
        # Each stream's synchronize calls on a row beside it, as kineto draws "Stream Sync".
        self.assertEqual(streams, {f"stream {k['tid']}" for k in kernels}
                         | {f"stream {k['tid']} (sync)" for k in kernels})
        syncs = self.events(trace, "X", "cuda_sync")
        self.assertEqual({(s["name"], s["tid"] - 1000000) for s in syncs},
                         {("Stream Sync", k["tid"]) for k in kernels})

    def test_gzip_holds_the_same_json(self):
        files = self.record("vector_add")
        plain = self.trace(*files)
        packed = self.trace(*files, out="trace.json.gz")
        self.assertEqual(plain, packed)
        with open(os.path.join(self.tmp, "trace.json.gz"), "rb") as f:
            self.assertEqual(f.read(2), b"\x1f\x8b")
        stdout = gpuprof("trace", *files, "-o", "-").stdout
        self.assertEqual(json.loads(stdout), plain)

    def test_two_processes_from_a_directory(self):
        runs = os.path.join(self.tmp, "runs")
        os.makedirs(runs)
        self.record("vector_add", "--iterations", "2", outdir=runs)
        self.record("vector_add", "--iterations", "3", outdir=runs)
        trace = self.trace(runs)
        files = trace["otherData"]["files"]
        self.assertEqual(len(files), 2)
        self.assertEqual(trace["otherData"]["clock"], "CLOCK_MONOTONIC")  # one host
        pids = {f["pid"] for f in files}
        self.assertEqual(len(pids), 2)
        launch_pids = {e["pid"] for e in self.events(trace, "X", "cuda_runtime")}
        self.assertEqual(launch_pids, pids)
        self.assertEqual(len(self.events(trace, "X", "kernel")), self.report_kernels(runs))
        # Side by side on one axis: the second run starts after the first ended.
        first = min((e["ts"] for e in self.events(trace, "X") if e["pid"] == files[0]["pid"]))
        second = min((e["ts"] for e in self.events(trace, "X") if e["pid"] == files[1]["pid"]))
        self.assertEqual(min(first, second), 1.0)  # the origin's lead (docs/trace.md)
        self.assertGreater(max(first, second), 1.0)

    def test_rank_is_distributed_info(self):
        run = self.profile([program("vector_add"), "--iterations", "1"], env={"RANK": "3"})
        self.assertEqual(run.returncode, 0, run.stderr)
        trace = self.trace(*run.files)
        self.assertEqual(trace["distributedInfo"], {"rank": 3})
        # Spelled as kineto spells it: HTA reads the rank with the regex "rank":\s+(\d+).
        with open(os.path.join(self.tmp, "trace.json"), encoding="utf-8") as f:
            self.assertRegex(f.read(), r'"distributedInfo": \{"rank": 3\}')
        names = [e["args"]["name"] for e in self.events(trace, "M") if e["name"] == "process_name"]
        self.assertTrue(any(n.startswith("rank 3: vector_add") for n in names), names)

    def test_fork_child_is_its_own_process(self):
        files = self.record("fork_child")
        self.assertEqual(len(files), 2)
        trace = self.trace(*files)
        names = [e["args"]["name"] for e in self.events(trace, "M") if e["name"] == "process_name"]
        pids = [f["pid"] for f in trace["otherData"]["files"]]
        self.assertEqual(len(set(pids)), 2)
        self.assertEqual(names.count("fork_child"), 2)

    def test_window_and_range(self):
        files = self.record("train_loop", "--steps", "4")
        full = self.trace(*files)
        step = next(e for e in self.events(full, "X", "user_annotation")
                    if e["name"] == "ProfilerStep#2")
        begin, end = step["ts"], step["ts"] + step["dur"]

        cut = self.trace(*files, options=("--window", f"{begin:.3f}us:{end:.3f}us"),
                         out="window.json")
        kept = [e for e in cut["traceEvents"] if e["ph"] in ("X", "i", "b")]
        self.assertTrue(kept)
        for e in kept:
            self.assertLessEqual(e["ts"], end + 1e-9, e)
            self.assertGreaterEqual(e["ts"] + e.get("dur", 0), begin - 1e-9, e)
        self.assertLess(len(kept), len([e for e in full["traceEvents"]
                                        if e["ph"] in ("X", "i", "b")]))

        ranged = self.trace(*files, options=("--range", "ProfilerStep#2"), out="range.json")
        calls = self.events(ranged, "X", "cuda_runtime")
        self.assertEqual(sorted({c["name"] for c in calls}),
                         ["cudaDeviceSynchronize", "cudaLaunchKernel", "cudaMemcpyAsync"])
        for c in calls:
            self.assertGreaterEqual(c["ts"], begin)
            self.assertLessEqual(c["ts"] + c["dur"], end + 1e-9)
        self.assertEqual(len(self.events(ranged, "X", "kernel")), 5)
        self.assertEqual(len(self.events(ranged, "s")), 6)  # 5 launches and the copy
        self.assertEqual([e["name"] for e in self.events(ranged, "X", "user_annotation")],
                         ["ProfilerStep#2", "forward", "backward"])

        # A cut that keeps nothing still writes a valid trace, and says why on stderr.
        last = max(e["ts"] + e.get("dur", 0) for e in full["traceEvents"] if e["ph"] == "X")
        for options, said in ((["--range", "ProfilerStep#99"], "--range 'ProfilerStep#99'"),
                              (["--window", "1000s:2000s"], "--window 1000s:2000s")):
            path = os.path.join(self.tmp, "empty.json")
            out = gpuprof("trace", *files, "-o", path, *options)
            self.assertIn(f"gpuprof: warning: {said} kept no event", out.stderr)
            span = re.search(r"the records span 1\.000us:([0-9.]+)(us|ms) from", out.stderr)
            self.assertIsNotNone(span, out.stderr)
            self.assertAlmostEqual(float(span[1]) * (1000 if span[2] == "ms" else 1), last,
                                   delta=1.0)
            with open(path, encoding="utf-8") as f:
                empty = json.load(f)
            self.check_valid(empty)
            self.assertEqual({e["ph"] for e in empty["traceEvents"]}, {"M"})
        self.assertNotIn("kept no event", gpuprof("trace", *files, "-o", path,
                                                  "--range", "ProfilerStep#2").stderr)

    def assertNoOutput(self):
        left = [f for f in os.listdir(self.tmp) if f.startswith("out.json")]
        self.assertEqual(left, [], "no trace and no temporary file is left behind")

    def test_crossing_domains_and_names_that_are_not_utf8(self):
        """Ranges of two NVTX domains that overlap without nesting on one thread: the second is
        an async slice. A name with a Latin-1 byte, '|' and a newline reaches every output,
        its bad byte as U+FFFD (nvtx_odd_ranges.cc)."""
        run = self.profile([program("nvtx_odd_ranges"), b"caf\xe9 | step\n2"])
        self.assertEqual(run.returncode, 0, run.stderr)
        trace = self.trace(*run.files)
        name = "caf\ufffd | step\n2"
        slices = {e["name"]: e for e in self.events(trace, "X", "user_annotation")}
        self.assertEqual(set(slices), {name, "outer A"})
        begin = self.events(trace, "b")
        end = self.events(trace, "e")
        self.assertEqual([e["name"] for e in begin], ["libdom:crossing B"])
        self.assertEqual([e["id"] for e in end], [begin[0]["id"]])
        outer = slices["outer A"]
        self.assertGreater(begin[0]["ts"], outer["ts"])
        self.assertGreater(end[0]["ts"], outer["ts"] + outer["dur"])

        report = json.loads(gpuprof("report", "--format", "json", *run.files).stdout)
        self.assertIn(name, [r["name"] for r in report["rows"]])
        table = gpuprof("report", *run.files).stdout
        self.assertIn("caf\ufffd | step 2", table)  # one line per row
        markdown = gpuprof("report", "--format", "md", *run.files).stdout
        self.assertIn("| `caf\ufffd \\| step 2` |", markdown)

    def test_output_that_is_not_a_regular_file(self):
        """A device or a FIFO is written to, never replaced; a symbolic link keeps pointing at
        the file, which gets the trace."""
        files = self.record("vector_add")
        gpuprof("trace", *files, "-o", "/dev/null")
        self.assertTrue(stat.S_ISCHR(os.stat("/dev/null").st_mode))
        full = gpuprof("trace", *files, "-o", "/dev/full", check=False)
        self.assertEqual(full.returncode, 1)
        self.assertIn("cannot write /dev/full", full.stderr)
        self.assertTrue(stat.S_ISCHR(os.stat("/dev/full").st_mode))
        os.makedirs(os.path.join(self.tmp, "real"))
        target = os.path.join(self.tmp, "real", "target.json")
        link = os.path.join(self.tmp, "link.json")
        os.symlink(target, link)
        gpuprof("trace", *files, "-o", link)
        self.assertTrue(os.path.islink(link))
        with open(target, encoding="utf-8") as f:
            self.check_valid(json.load(f))
        fifo = os.path.join(self.tmp, "fifo.json")
        os.mkfifo(fifo)
        child = subprocess.Popen([GPUPROF, "trace", *files, "-o", fifo], stderr=subprocess.PIPE)
        with open(fifo, encoding="utf-8") as f:
            self.check_valid(json.load(f))
        self.assertEqual(child.wait(timeout=60), 0)
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))

    def test_bad_input_and_bad_options(self):
        files = self.record("vector_add")
        out = os.path.join(self.tmp, "out.json")
        missing = gpuprof("trace", os.path.join(self.tmp, "nope.gprof"), "-o", out, check=False)
        self.assertEqual(missing.returncode, 1, missing.stderr)
        self.assertIn("nope.gprof", missing.stderr)
        self.assertNoOutput()
        # A readable file next to an unreadable one: still no trace.
        junk = os.path.join(self.tmp, "junk.gprof")
        with open(junk, "w") as f:
            f.write("not a profile\n")
        mixed = gpuprof("trace", files[0], junk, "-o", out, check=False)
        self.assertEqual(mixed.returncode, 1, mixed.stderr)
        self.assertNoOutput()
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        self.assertEqual(gpuprof("trace", empty, "-o", out, check=False).returncode, 1)
        self.assertNoOutput()
        for options in (["--window", "1s"], ["--window", "2s:1s"], ["--window", "5:10ms"],
                        ["--busy-bucket", "0ms"], ["--busy-bucket", "1"],
                        ["--busy-bucket", "1000001s"], []):
            bad = gpuprof("trace", files[0], *options, *(["-o", out] if options else []),
                          check=False)
            self.assertEqual(bad.returncode, 2, (options, bad.stderr))
            self.assertNoOutput()
        unwritable = gpuprof("trace", files[0], "-o", os.path.join(self.tmp, "no", "dir.json"),
                             check=False)
        self.assertEqual(unwritable.returncode, 1)
        self.assertIn("cannot create", unwritable.stderr)
        self.assertEqual(gpuprof("trace", files[0], "-o", "", check=False).returncode, 2)

    def test_a_recording_is_never_the_output(self):
        """`-o gprof-*.gprof` (a glob that expands to recordings) or an input as -o: exit 2,
        and the recording is left as it was."""
        first = self.record("vector_add")[0]
        second = self.record("vector_add")[0]
        with open(first, "rb") as f:
            before = f.read()
        for args, said in (([second, "-o", first], "is a sidecar file"),
                           (["-o", first, second], "is a sidecar file"),
                           ([first, "-o", first], "is one of the inputs")):
            out = gpuprof("trace", *args, check=False)
            self.assertEqual(out.returncode, 2, out.stderr)
            self.assertIn(f"gpuprof: error: -o {first} {said}", out.stderr)
            with open(first, "rb") as f:
                self.assertEqual(f.read(), before)


if __name__ == "__main__":
    unittest.main()
