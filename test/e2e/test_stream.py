"""The streaming report (issue 13, tools/analysis/aggregate/ops_stream.h) against the in-memory
one (GPROF_STREAM=0): the same bytes for every option the stream takes, on files the shim wrote
through the fake runtime and on gpuprof-gen's files; the stream really used (no "read in
memory" note); and the files it cannot take read in memory, with the note."""

import itertools
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from gprof_e2e import GPUPROF, E2ETestCase, program, run_program

GEN = os.environ.get("GPUPROF_GEN", "")

# Options the stream takes: every view, group-by and format it serves.
STREAMED = (
    [],
    ["--limit", "0", "--profile-memory"],
    ["--view", "api", "--limit", "0"],
    ["--view", "kernels", "--format", "json"],
    ["--view", "ranges", "--format", "csv"],
    ["--group-by", "launch-config", "--limit", "0"],
    ["--group-by", "input-shape", "--format", "md"],
    ["--group-by", "seq", "--limit", "0"],
    ["--group-by", "process", "--limit", "0"],
    ["--group-by", "rank", "--format", "json"],
    ["--group-by", "thread", "--limit", "0", "--profile-memory"],
    ["--group-by", "thread", "--view", "kernels", "--format", "csv"],
    ["--range", "*", "--limit", "0", "--profile-memory"],
    ["--range", "*", "--top-level-only", "--group-by", "thread", "--step", "*"],
    ["--group-by", "stream", "--limit", "0", "--profile-memory"],
    ["--group-by", "device", "--view", "api", "--format", "csv"],
    ["--group-by", "stream", "--range", "*", "--limit", "0"],
    ["--group-by", "device", "--range", "*", "--view", "kernels"],
    ["--top-level-only", "--limit", "0"],
    ["--sort", "count", "--step", "ProfilerStep*", "--limit", "0"],
    ["--view", "launches", "--limit", "0"],
    ["--view", "launches", "--format", "json"],
    ["--view", "memory", "--limit", "0"],
    ["--view", "launches", "--range", "*", "--limit", "0"],
    ["--view", "memory", "--range", "*", "--sort", "bytes"],
)

# Also with a table's rows and the labels of rows grouped by a number spilled past a few
# (GPROF_STREAM=spill-rows: key_averages.h, number_rows.h), the path of millions of rows.
SPILLED = (
    [],
    ["--group-by", "seq", "--limit", "0"],
    ["--group-by", "seq", "--format", "json", "--profile-memory"],
    ["--group-by", "input-shape", "--format", "md"],
    ["--group-by", "thread", "--limit", "0", "--profile-memory"],
    ["--range", "*", "--top-level-only", "--group-by", "thread", "--step", "*"],
    ["--group-by", "stream", "--range", "*", "--limit", "0"],
)


def report(args, paths, stream=True, env=None):
    """`gpuprof report`: streamed (GPROF_STREAM unset, or as `env` sets it), or in memory."""
    run_env = {k: v for k, v in os.environ.items() if k != "GPROF_STREAM"}
    run_env.update(env or {})
    if not stream:
        run_env["GPROF_STREAM"] = "0"
    return subprocess.run([GPUPROF, "report", "--quiet", *args, *paths], capture_output=True,
                          text=True, env=run_env, timeout=300)


def info(paths, stream=True):
    """`gpuprof info`: streamed beside report's rows, or in memory (GPROF_STREAM=0)."""
    env = {k: v for k, v in os.environ.items() if k != "GPROF_STREAM"}
    if not stream:
        env["GPROF_STREAM"] = "0"
    return subprocess.run([GPUPROF, "info", "--quiet", *paths], capture_output=True, text=True,
                          env=env, timeout=300)


class StreamCase(E2ETestCase):
    def check(self, paths, option_sets=STREAMED, dumps=True):
        streamed, in_memory = info(paths), info(paths, stream=False)
        self.assertNotIn("read in memory", streamed.stderr)
        self.assertIn("GPU records:", streamed.stdout)
        self.assertEqual((streamed.returncode, streamed.stdout, streamed.stderr),
                         (in_memory.returncode, in_memory.stdout, in_memory.stderr))
        for args in option_sets:
            streamed = report(args, paths)
            in_memory = report(args, paths, stream=False)
            if "--range" in args and "matches no range" in streamed.stderr:
                # A file without NVTX ranges: the same error either way.
                self.assertEqual((streamed.returncode, streamed.stderr),
                                 (in_memory.returncode, in_memory.stderr), args)
                continue
            self.assertEqual(streamed.returncode, 0, (args, streamed.stderr))
            self.assertNotIn("read in memory", streamed.stderr, args)
            self.assertTrue(streamed.stdout, args)
            self.assertEqual(streamed.stdout, in_memory.stdout, args)
            self.assertEqual(streamed.stderr, in_memory.stderr, args)
            if args in SPILLED:
                spilled = report(args, paths, env={"GPROF_STREAM": "spill-rows"})
                self.assertEqual((spilled.returncode, spilled.stdout, spilled.stderr),
                                 (0, in_memory.stdout, in_memory.stderr), args)
        if dumps:
            self.check_dump(paths)

    def check_dump(self, paths):
        """`dump` streams: API records and ranges in one read (ranges printed once it ends), GPU
        records paired in a second (findings/stream/gpu_calls.h) and printed in a third. Each
        kind, and all of them, line by line against the in-memory loader's `--records all`,
        from files: this process must stay small (with_peak)."""
        def dump(records, out, env=None):
            run = subprocess.run([GPUPROF, "dump", "--quiet", "--records", records, *paths],
                                 stdout=out, stderr=subprocess.PIPE, text=True, timeout=300,
                                 env={**{k: v for k, v in os.environ.items()
                                         if k != "GPROF_STREAM"}, **(env or {})})
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertNotIn("read in memory", run.stderr)
            out.seek(0)
            return out

        with tempfile.TemporaryFile("w+") as loaded:
            dump("all", loaded, {"GPROF_STREAM": "0"})
            for records in ("all", "api", "ranges", "gpu"):
                loaded.seek(0)
                wanted = (line for line in loaded
                          if records == "all" or line.endswith(f'"type":"{records.rstrip("s")}"}}\n'))
                with tempfile.TemporaryFile("w+") as streamed:
                    lines = 0
                    for streamed_line, loaded_line in itertools.zip_longest(
                            dump(records, streamed), wanted):
                        self.assertEqual(streamed_line, loaded_line, records)
                        lines += 1
                    if records in ("all", "api"):
                        self.assertGreater(lines, 0, records)

    def record(self, *args, env=None):
        run = run_program([program(args[0]), *args[1:]], self.tmp, env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertTrue(run.files)
        return run.files


class StreamMatchesMemory(StreamCase):
    def test_threads_ranges_and_graphs_the_shim_wrote(self):
        files = (self.record("train_loop") + self.record("threads_streams") +
                 self.record("graph_launch") + self.record("more_apis"))
        for path in files:
            self.check([path])
        self.check(files, [[], ["--group-by", "process", "--limit", "0"]])

    def test_capture_windows_the_shim_wrote(self):
        """Issue 31: a file recorded with a capture window was read in memory (its GPU work of
        calls outside the window is left out, and whether a record had a call is known late).
        The stream holds what came before any call of its id until the file ends: the same
        bytes, no note."""
        for args, env in (((), {"GPROF_CAPTURE": "nvtx:forward"}),
                          (("--profiler-window", "2:4"), {"GPROF_CAPTURE": "cudaProfilerApi"})):
            self.check(self.record("train_loop", *args, env=env))

    def test_many_threads_with_nested_ranges(self):
        """burst: threads launching inside NVTX pairs named as PyTorch's emit_nvtx names ops,
        written in many frames while the threads run."""
        files = self.record("burst", "4", "20000", "2000", "--torch-names")
        self.check(files)

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_generated_ranks_threads_and_late_gpu_buffers(self):
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([GEN, "--records", "400K", "--ranks", "2", "--threads", "6",
                            "--ops-per-step", "50", "--seed", "3", "-o",
                            os.path.join(d, "g%r.gprof")], check=True, capture_output=True)
            paths = [os.path.join(d, "g0.gprof"), os.path.join(d, "g1.gprof")]
            self.check(paths, dumps=False)  # the shim's files cover dump
            self.check([paths[1]], [[], ["--view", "api"]], dumps=False)

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_gpu_records_long_after_their_calls(self):
        """Issue 31: a GPU that falls behind a loop that queues work delivers its records after
        more calls than the stream's pairing table holds (2^20). They were read in memory: on a
        15M-record file 9.1 s and 1.43 GB instead of 1.2 s and 67 MB. Here every buffer comes at
        the end of a run of 1.25M calls; the stream keeps where the pushed-out calls' time goes
        on disk, gives the in-memory bytes, and stays in its memory. --group-by stream, whose
        API rows wait for their first work, overflows its hold and reads the file twice."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lag.gprof")
            subprocess.run([GEN, "--records", "7M", "--gpu-lag", "60", "-o", path], check=True,
                           capture_output=True)
            assert_streamed_as_in_memory(
                self, path,
                ([], ["--view", "ranges", "--format", "csv"],
                 ["--group-by", "thread", "--limit", "0"],
                 ["--group-by", "stream", "--limit", "0"],
                 ["--range", "aten::linear", "--view", "kernels"]),
                peak_mib=160)


    def test_the_shim_recorded_a_gpu_far_behind_its_launches(self):
        """Issue 31's headline: a file the shim wrote while the GPU fell seconds behind a launch
        loop (2 threads x 600K launches of a 20 us kernel, 3 us apart) was read in memory at
        ~140 bytes a record. The pushed-out launches stay in memory by blocks of ids with
        their rows, their late work summed as it comes: the in-memory bytes, no note, and
        every kernel's time reaches the range its launch was in."""
        import csv
        [path] = self.record("burst", "2", "600000", "100000")
        assert_streamed_as_in_memory(
            self, path, ([], ["--group-by", "thread", "--limit", "0"]), peak_mib=150)
        rows = {row["Name"]: row for row in csv.DictReader(
            report(["--format", "csv"], [path]).stdout.splitlines())}
        self.assertEqual(rows["empty_kernel()"]["# of Calls"], "1200000")
        self.assertEqual(rows["empty_kernel()"]["CUDA total (ns)"], str(1_200_000 * 20_000))
        self.assertEqual(rows["thread"]["CUDA total (ns)"], str(1_200_000 * 20_000))
        self.assertEqual(rows["thread"]["Self CUDA (ns)"], str(1_200_000 * 20_000))

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_gpu_far_behind_during_a_takeover(self):
        """Issue 31: while another tool holds CUPTI, a GPU record pairs through its external
        correlation, and the stream kept the last 2^20 of those. A GPU 30 s behind its calls
        delivered records whose mapping had left that table: the file was read in memory (10M
        records: 1.1 GB; 100M: 9.9 GB). The mappings pushed out are kept on disk and the lost
        records paired once the file has ended: the in-memory bytes, no note, the stream's
        memory."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "takeover_lag.gprof")
            subprocess.run([GEN, "--records", "10M", "--takeover", "5:60", "--gpu-lag", "30",
                            "-o", path], check=True, capture_output=True)
            assert_streamed_as_in_memory(
                self, path,
                ([], ["--group-by", "thread", "--limit", "0"],
                 ["--group-by", "stream", "--range", "ProfilerStep*"]),
                peak_mib=200)

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_takeover_inside_a_capture_window_with_gpu_far_behind(self):
        """Issue 31: torch.profiler started inside a cudaProfilerApi window, the GPU 60 s behind
        its calls. A GPU record whose external correlation had left the pairing table sent the
        file to memory (10M records: 7.9 s, 1.1 GB), as only a window can say whether work with
        no call counts; and work held for a call pushed out of the table was left out of the
        CUPTI gap's counts with --group-by thread and --range. Streamed now: the in-memory
        bytes, no note, the stream's memory."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "window_takeover_lag.gprof")
            subprocess.run([GEN, "--records", "10M", "--capture-window", "2:100000",
                            "--takeover", "5:60", "--gpu-lag", "60", "-o", path], check=True,
                           capture_output=True)
            info = subprocess.run([GPUPROF, "info", path], capture_output=True, text=True)
            self.assertIn("Taken over:", info.stdout)
            self.assertIn("capture=cudaProfilerApi", info.stdout)
            assert_streamed_as_in_memory(
                self, path,
                ([], ["--group-by", "thread", "--limit", "0"], ["--range", "ProfilerStep*"]),
                peak_mib=200)

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_generated_capture_windows(self):
        """Issue 31: files recorded with capture windows (the GPU work of calls outside them
        still reported, queued before one opened or issued just after one closed) were read in
        memory, ~140 bytes a record. Streamed: the in-memory bytes on every option, in the
        stream's memory."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "windowed.gprof")
            subprocess.run([GEN, "--records", "300K", "--ops-per-step", "20", "--seed", "7",
                            "--capture-window", "2:9,12:13,15:1000", "-o", path], check=True,
                           capture_output=True)
            info = subprocess.run([GPUPROF, "info", path], capture_output=True, text=True)
            self.assertRegex(info.stdout, r"\d+ issued outside the capture window")
            self.check([path])
            path = os.path.join(d, "big.gprof")
            subprocess.run([GEN, "--records", "5M", "--capture-window", "1:40,41:100000", "-o",
                            path], check=True, capture_output=True)
            assert_streamed_as_in_memory(
                self, path,
                ([], ["--view", "kernels", "--format", "csv"],
                 ["--group-by", "thread", "--view", "kernels"],
                 ["--range", "ProfilerStep*", "--step", "ProfilerStep*"],
                 ["--view", "launches", "--range", "ProfilerStep*"]),
                peak_mib=160)

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_a_row_per_op_stays_small(self):
        """Issue 31: --group-by seq makes a row per op (274K rows from 2M records). Each row's
        state cost about 750 bytes while the file was read: 235-247 MB here (2026-11-29, main at
        c959959), 1.36 GB on a 15M-record file; 110 MB at 02eb51f, which kept the rows in memory
        (4.39 GB at 100M records). Past 131072 the labels of rows grouped by a number leave
        memory as rows (number_rows.h), and the table's rows go to temporary files
        (key_averages.h, render/large_table.h): 91-109 MB here, 98 MB on a 6M-record file
        (823K rows, 272 MB at 02eb51f), 130 MB at 100M records."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "ops.gprof")
            subprocess.run([GEN, "--records", "2M", "-o", path], check=True, capture_output=True)
            assert_streamed_as_in_memory(
                self, path, (["--group-by", "seq", "--format", "csv", "--limit", "0"],),
                peak_mib=140)
            rows, _ = report_with_peak(["--group-by", "seq", "--format", "csv", "--limit", "0"],
                                       [path])
            self.assertEqual(rows.stdout.count("\n"), 274354)  # header + a row per op
            # Three times the rows, not three times the memory.
            path = os.path.join(d, "ops6.gprof")
            subprocess.run([GEN, "--records", "6M", "-o", path], check=True, capture_output=True)
            out_path = os.path.join(d, "rows.csv")
            run, peak_kb = with_peak(["report", "--quiet", "--group-by", "seq", "--format", "csv",
                                      "--limit", "0", path], out_path)
            self.assertEqual(run.returncode, 0, run.stderr)
            with open(out_path) as f:
                self.assertEqual(sum(1 for _ in f), 822935)
            self.assertLess(peak_kb, 160 * 1024)


def assert_streamed_as_in_memory(test, path, arg_lists, peak_mib):
    """`gpuprof report ARGS path` for each ARGS: streamed (no note), the in-memory bytes, and
    a peak under `peak_mib`."""
    for args in arg_lists:
        streamed, peak_kb = report_with_peak(args, [path])
        test.assertEqual(streamed.returncode, 0, streamed.stderr)
        test.assertNotIn("read in memory", streamed.stderr)
        test.assertEqual(streamed.stdout, report(args, [path], stream=False).stdout, args)
        test.assertLess(peak_kb, peak_mib * 1024, args)


def report_with_peak(args, paths):
    """`gpuprof report` and the peak resident memory of that process alone, in KiB."""
    return with_peak(["report", "--quiet", *args, *paths])


def with_peak(args, stdout_path=None):
    """A gpuprof command streamed, and the peak resident memory of that process alone, in KiB.
    A forked child's peak starts at this process's size (the pages it shares until exec count),
    so big outputs go to a file (`stdout_path`: then stdout is not read back)."""
    env = dict(os.environ)
    env.pop("GPROF_STREAM", None)
    with (open(stdout_path, "w+") if stdout_path else tempfile.TemporaryFile("w+")) as out, \
            tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([GPUPROF, *args], stdout=out, stderr=err, text=True, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (subprocess.CompletedProcess(child.args, child.returncode,
                                            "" if stdout_path else out.read(), err.read()),
                usage.ru_maxrss)


class DiffStreams(E2ETestCase):
    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_diff_without_findings_streams_the_same_rows(self):
        """diff --no-findings reads the sides as a stream: the rows of the diff with findings,
        the stream's bytes equal to the in-memory path's, no note."""
        import json
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([GEN, "--records", "200K", "--ranks", "2", "--seed", "5", "-o",
                            os.path.join(d, "g%r.gprof")], check=True, capture_output=True)
            sides = [os.path.join(d, "g0.gprof"), os.path.join(d, "g1.gprof")]

            def diff(*args, stream=True):
                env = dict(os.environ)
                env.pop("GPROF_STREAM", None)
                if not stream:
                    env["GPROF_STREAM"] = "0"
                return subprocess.run([GPUPROF, "diff", "--quiet", *args, *sides],
                                      capture_output=True, text=True, env=env, timeout=300)

            streamed = diff("--no-findings", "--format", "json")
            self.assertIn(streamed.returncode, (0, 1), streamed.stderr)
            self.assertNotIn("read in memory", streamed.stderr)
            self.assertEqual(streamed.stdout,
                             diff("--no-findings", "--format", "json", stream=False).stdout)
            with_findings = json.loads(diff("--format", "json").stdout)
            without = json.loads(streamed.stdout)
            self.assertTrue(without["rows"])
            self.assertEqual(without["rows"], with_findings["rows"])
            self.assertEqual(without.get("new_findings", []), [])


class InMemoryWhenItMustBe(E2ETestCase):
    def test_ids_too_far_apart_to_unwrap_are_read_in_memory_with_a_note(self):
        """The fake advances its 32-bit id counter by 2^26 a call (2^26 calls gprof never sees):
        the ids wrap every 64 calls, and a GPU record read 32 calls after its call could belong
        to either wrap. call_pairing.h unwraps by time after reading; the stream does not guess."""
        run = run_program([program("train_loop")], self.tmp,
                          env={"GPROF_FAKE_CORRELATION_STEP": str(1 << 26)})
        self.assertEqual(run.returncode, 0, run.stderr)
        for args in ([], ["--view", "launches"], ["--view", "memory"]):
            streamed = report(args, run.files)
            self.assertEqual(streamed.returncode, 0, streamed.stderr)
            self.assertIn(f"gpuprof: note: {run.files[0]}: read in memory (correlation ids too "
                          "far apart to unwrap as they come)", streamed.stderr, args)
            self.assertEqual(streamed.stdout, report(args, run.files, stream=False).stdout, args)
        streamed = info(run.files)
        self.assertIn("read in memory (correlation ids too far apart", streamed.stderr)
        self.assertEqual(streamed.stdout, info(run.files, stream=False).stdout)
        gpu = [subprocess.run([GPUPROF, "dump", "--quiet", "--records", "gpu", *run.files],
                              capture_output=True, text=True, env={**os.environ, **env})
               for env in ({}, {"GPROF_STREAM": "0"})]
        self.assertIn("read in memory (correlation ids too far apart", gpu[0].stderr)
        self.assertIn('"api_correlation"', gpu[0].stdout)
        self.assertEqual(gpu[0].stdout, gpu[1].stdout)


class StartEndWindows(E2ETestCase):
    def test_a_start_end_range_that_range_names_streams_in_two_passes(self):
        """--range over a start/end range keeps what lies inside its time on every thread,
        events walked before its end was read: the stream reads the file twice, the windows
        first (they were read in memory, with a note). The in-memory bytes, no note, in every
        view; a push/pop range named beside it as before."""
        run = run_program([program("nvtx_ranges")], self.tmp)
        self.assertEqual(run.returncode, 0, run.stderr)
        for args in (["--range", "handoff"], ["--range", "worker"], ["--range", "*"],
                     ["--range", "handoff", "--group-by", "thread", "--profile-memory"],
                     ["--range", "handoff", "--top-level-only"],
                     ["--view", "memory", "--range", "*"],
                     ["--view", "launches", "--range", "handoff"]):
            streamed = report(args, run.files)
            self.assertEqual(streamed.returncode, 0, streamed.stderr)
            self.assertNotIn("read in memory", streamed.stderr, args)
            self.assertEqual(streamed.stdout, report(args, run.files, stream=False).stdout, args)
        # The window holds the handoff thread's copies: rows, not an empty table.
        self.assertIn("cudaMemcpy", report(["--range", "handoff"], run.files).stdout)

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_generated_start_end_steps(self):
        """gpuprof-gen --start-end: every step also a start/end range, train_step. --range
        train_step streams in two passes at 3M records: the in-memory bytes, no note, in the
        stream's memory (in memory: about 1 GB at 10M records)."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "se.gprof")
            subprocess.run([GEN, "--records", "3M", "--start-end", "-o", path], check=True,
                           capture_output=True)
            info = subprocess.run([GPUPROF, "info", path], capture_output=True, text=True)
            self.assertRegex(info.stdout, r"Ranges:.* \d+ start/end")
            for args in (["--range", "train_step"],
                         ["--range", "train_step", "--group-by", "thread", "--profile-memory"],
                         ["--range", "train_step", "--view", "launches"]):
                streamed, peak_kb = report_with_peak(args, [path])
                self.assertEqual(streamed.returncode, 0, streamed.stderr)
                self.assertNotIn("read in memory", streamed.stderr, args)
                if "launches" not in args:
                    self.assertIn("train_step", streamed.stdout, args)
                self.assertEqual(streamed.stdout, report(args, [path], stream=False).stdout, args)
                self.assertLess(peak_kb, 160 * 1024, args)


class GroupByWork(E2ETestCase):
    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_group_by_stream_holds_calls_for_their_work_else_reads_twice(self):
        """--group-by stream|device: an API row is the stream or device of the first GPU work
        its call issued. The stream holds a launch back from the walk until that work has come
        (2^19 events of all threads at most): a GPU 2 s behind streams at once; one whose
        buffers come 60 s late overflows the hold, and the file is streamed twice, the calls'
        groups found in the first pass. No note, and the in-memory bytes either way;
        GPROF_STREAM=two-pass takes the second way on the 2 s file too."""
        with tempfile.TemporaryDirectory() as d:
            for lag, env in (("2", {}), ("60", {}), ("2", {"GPROF_STREAM": "two-pass"})):
                path = os.path.join(d, f"lag{lag}.gprof")
                if not os.path.exists(path):
                    subprocess.run([GEN, "--records", "3M", "--gpu-lag", lag, "-o", path],
                                   check=True, capture_output=True)
                for args in (["--group-by", "stream"], ["--group-by", "device", "--view", "api"],
                             ["--group-by", "stream", "--range", "aten::*"],
                             ["--group-by", "device", "--range", "aten::*", "--profile-memory"]):
                    streamed = report(args, [path], env=env)
                    self.assertEqual(streamed.returncode, 0, streamed.stderr)
                    self.assertNotIn("read in memory", streamed.stderr, (lag, env, args))
                    self.assertEqual(streamed.stdout, report(args, [path], stream=False).stdout,
                                     (lag, env, args))


class WrappedIds(StreamCase):
    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_ids_that_wrap_stream(self):
        """Issue 31: a run of 2^32 calls has CUPTI's 32-bit ids wrap; such files were read in
        memory. The stream unwraps them as they come (stream_ids.h): the same bytes, a
        takeover's pushed ids beside them too."""
        with tempfile.TemporaryDirectory() as d:
            # The ids wrap in the middle of the run; inside a takeover; before one (found in
            # review: the in-memory pairing left the takeover's GPU records unpaired).
            for name, first, more in (("wrap", "4294900000", []),
                                      ("inside", "4294900000", ["--takeover", "3:5,8:9"]),
                                      ("before", "4294967000", ["--takeover", "2:4"])):
                path = os.path.join(d, name + ".gprof")
                subprocess.run([GEN, "--records", "1M", "--first-correlation", first, "--seed",
                                "3", "-o", path, *more], check=True, capture_output=True)
                info = subprocess.run([GPUPROF, "info", path], capture_output=True,
                                      text=True).stdout
                self.assertRegex(info, r"GPU records:.*; 0 unpaired")
                # dump's unwrap once (1M records through JSON cost seconds a run).
                self.check([path],
                           [[], ["--view", "launches"], ["--view", "memory", "--limit", "0"]],
                           dumps=name == "inside")


class Takeovers(StreamCase):
    """Issue 31: a file in which another tool took CUPTI over (torch.profiler's kineto) was
    read in memory: its later calls pair through external ids, and it has CUPTI gaps. Both
    stream now (external_ids.h, gap_tally.h): the same bytes, the gaps' counts included."""

    def takeover(self, *args, env=None):
        return self.record("kineto_takeover", "--before", "8", "--during", "3", "--after",
                           "12", "--pause-ms", "300", *args, env=env)

    def test_subscriber_held_by_another_tool_from_the_start(self):
        self.check(self.record("train_loop", env={"GPROF_FAKE_CUPTI": "subscriber_taken"}))

    def test_subscriber_given_up_mid_run_and_a_gap(self):
        files = self.takeover("--subscribe")
        self.check(files)
        out = report([], files).stdout
        self.assertIn("3 launches in it, 3 without GPU records; GPU records: 9 before, 0 during, "
                      "13 after", out)

    def test_buffers_taken_mid_run_a_gap_without_external_ids(self):
        files = self.takeover()
        self.check(files)
        self.assertIn("3 launches in it, 3 without GPU records", report([], files).stdout)

    def test_a_takeover_inside_a_capture_window(self):
        """GPROF_CAPTURE=cudaProfilerApi around a takeover, with work issued before the window
        opened and after it closed: the stays' external correlations, and the gaps' counts of
        the GPU records the window keeps, were read in memory (report, analyze); streamed now.
        With --subscribe the calls pair through pushed ids; without, by CUPTI id."""
        for extra in ((), ("--subscribe",)):
            files = self.takeover("--profiler-window", *extra,
                                  env={"GPROF_CAPTURE": "cudaProfilerApi"})
            info = subprocess.run([GPUPROF, "info", *files], capture_output=True,
                                  text=True).stdout
            self.assertRegex(info, r"Taken over:.*3 launches in it", extra)
            self.check(files)
            self.assertIn("3 launches in it, 3 without GPU records; GPU records: 5 before, "
                          "0 during, 13 after", report([], files).stdout, extra)
            for args in (["--group-by", "thread"], ["--group-by", "stream"]):
                self.assertIn("GPU records: 5 before, 0 during, 13 after",
                              report(args, files).stdout, (extra, args))
            env = {k: v for k, v in os.environ.items() if k != "GPROF_STREAM"}
            analyzed = [subprocess.run([GPUPROF, "analyze", *files], capture_output=True,
                                       text=True, env={**env, **more})
                        for more in ({}, {"GPROF_STREAM": "0"})]
            self.assertNotIn("read in memory", analyzed[0].stderr, extra)
            self.assertEqual(analyzed[0].stdout, analyzed[1].stdout, extra)

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_generated_takeovers(self):
        """gpuprof-gen --takeover: two stays of another tool, the calls from the first on with
        pushed ids, their external correlations after the GPU records in each buffer (the
        records wait for their mapping). Every option, the same bytes; the gaps' counts; and at
        4M records the stream's memory."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "takeover.gprof")
            subprocess.run([GEN, "--records", "300K", "--ops-per-step", "20", "--seed", "7",
                            "--takeover", "3:6,10:12", "-o", path], check=True,
                           capture_output=True)
            self.check([path])
            gaps = [line for line in report([], [path]).stdout.splitlines()
                    if line.startswith("GPU records missing")]
            self.assertEqual(len(gaps), 2, gaps)
            for line in gaps:
                launches = re.search(r"(\d+) launches in it, (\d+) without GPU records; GPU "
                                     r"records: (\d+) before, (\d+) during, (\d+) after", line)
                self.assertIsNotNone(launches, line)
                # Every launch of a stay went to the other tool; the file has records on both
                # sides of it.
                self.assertGreater(int(launches[1]), 20, line)
                self.assertEqual(launches[1], launches[2], line)
                self.assertGreater(int(launches[3]), 0, line)
                self.assertGreater(int(launches[5]), 0, line)
            info = subprocess.run([GPUPROF, "info", path], capture_output=True, text=True).stdout
            self.assertRegex(info, r"State:\s+EXTERNAL_CORRELATION")
            self.assertRegex(info, r"GPU records:.*; 0 unpaired")
            path = os.path.join(d, "big.gprof")
            subprocess.run([GEN, "--records", "4M", "--takeover", "5:20,40:41", "-o", path],
                           check=True, capture_output=True)
            assert_streamed_as_in_memory(
                self, path,
                ([], ["--view", "launches", "--format", "csv"],
                 ["--group-by", "thread", "--limit", "0"],
                 ["--range", "aten::*", "--group-by", "thread", "--limit", "0"]),
                peak_mib=160)

    def test_finalized_by_the_other_tool_a_gap_to_the_end(self):
        files = self.takeover("--subscribe", "--finalize")
        self.check(files)
        self.assertRegex(report([], files).stdout, r"no GPU records from \S+ to the end: "
                         r"cuptiFinalize by .*; 12 launches in it, 12 without GPU records")


if __name__ == "__main__":
    unittest.main()
