"""The findings of analyze, diff and record read as a stream (issue 13,
tools/findings/stream/streamed_file.h) against the in-memory timelines (GPROF_STREAM=0): the same
bytes on files the shim wrote through the fake runtime and on gpuprof-gen's files, with
thresholds low enough that every rule has something to say; the stream really used (no
"read in memory" note); a file it cannot take read in memory, with the note, alone; and the
peak memory of analyze and diff on a generated file under a bound."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from gprof_e2e import GPUPROF, E2ETestCase, program, run_program

GEN = os.environ.get("GPUPROF_GEN", "")
# Records of the memory tests' file: big enough that the in-memory path would pass the bound.
MEMORY_RECORDS = os.environ.get("GPROF_FINDINGS_MEMORY_RECORDS", "3M")

# Every rule fires wherever it finds anything at all.
LOW = [
    "--min-share", "0", "--threshold", "gpu-idle.min_share=0", "--threshold", "gpu-idle.min_gap=1us",
    "--threshold", "launch-bound.min_launches=1", "--threshold", "launch-bound.min_short_share=0",
    "--threshold", "launch-bound.max_gpu_busy=100%", "--threshold", "excessive-sync.min_share=0",
    "--threshold", "excessive-sync.min_count=1", "--threshold", "memcpy-dtoh-sync.min_count=1",
    "--threshold", "pageable-memcpy.min_count=1", "--threshold", "small-memcpy.min_count=1",
    "--threshold", "small-memcpy.max_bytes=1GB", "--threshold", "straggler.min_excess=0",
    "--threshold", "exposed-comm.min_share=0",
]

OPTIONS = (
    ["--format", "json", *LOW],
    ["--format", "md", *LOW],
    [],
    ["--format", "json", "--range", "*", *LOW],
    ["--format", "json", "--step", "aten::*", *LOW],
)


# CUPTI ids that wrap around 2^32 every 64 calls: the fake advances its counter by 2^26 a call,
# too far apart for the stream to unwrap as they come.
WRAPPING = {"GPROF_FAKE_CORRELATION_STEP": str(1 << 26)}


def env_for(stream):
    env = dict(os.environ)
    env.pop("GPROF_STREAM", None)
    if not stream:
        env["GPROF_STREAM"] = "0"
    return env


def gpuprof_run(command, args, paths, stream=True):
    return subprocess.run([GPUPROF, command, "--quiet", *args, *paths], capture_output=True,
                          text=True, env=env_for(stream), timeout=300)


def generate(outdir, records, *more):
    out = subprocess.run([GEN, "--records", str(records), "-o", os.path.join(outdir, "g%r.gprof"),
                          *more], capture_output=True, text=True, check=True, timeout=600)
    return [f["path"] for f in json.loads(out.stdout)["files"]]


class StreamedFindingsMatchMemory(E2ETestCase):
    def check(self, paths, option_sets=OPTIONS):
        fired = 0
        for args in option_sets:
            streamed = gpuprof_run("analyze", args, paths)
            in_memory = gpuprof_run("analyze", args, paths, stream=False)
            self.assertEqual(streamed.returncode, in_memory.returncode, (args, streamed.stderr))
            self.assertNotIn("read in memory", streamed.stderr, args)
            if "--range" in args and streamed.returncode == 2:  # a file without ranges
                self.assertIn("matches no range", streamed.stderr)
                continue
            self.assertEqual(streamed.returncode, 0, (args, streamed.stderr))
            self.assertTrue(streamed.stdout, args)
            self.assertEqual(streamed.stdout, in_memory.stdout, args)
            self.assertEqual(streamed.stderr, in_memory.stderr, args)
            if "json" in args:
                fired = max(fired, len(json.loads(streamed.stdout)["findings"]))
        return fired

    def record(self, *args, env=None):
        run = run_program([program(args[0]), *args[1:]], self.tmp, env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertTrue(run.files)
        return run.files

    def test_threads_ranges_copies_and_graphs_the_shim_wrote(self):
        files = (self.record("train_loop") + self.record("threads_streams") +
                 self.record("graph_launch") + self.record("more_apis"))
        for path in files:
            self.check([path])
        self.assertGreaterEqual(self.check(files), 5)

    def test_many_threads_with_nested_ranges(self):
        self.assertGreaterEqual(
            self.check(self.record("burst", "4", "20000", "2000", "--torch-names")), 1)

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_generated_ranks_threads_and_late_gpu_buffers(self):
        with tempfile.TemporaryDirectory() as d:
            paths = generate(d, "400K", "--ranks", "2", "--threads", "6", "--ops-per-step", "50",
                             "--seed", "3")
            self.assertGreaterEqual(self.check(paths), 5)
            self.check([paths[1]], [["--format", "json", *LOW]])

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_diff_findings(self):
        """diff's new findings come from the stream too: the same document as in memory."""
        with tempfile.TemporaryDirectory() as d:
            sides = generate(d, "300K", "--ranks", "2", "--seed", "5")
            streamed = gpuprof_run("diff", ["--format", "json"], sides)
            in_memory = gpuprof_run("diff", ["--format", "json"], sides, stream=False)
            self.assertIn(streamed.returncode, (0, 1), streamed.stderr)
            self.assertNotIn("read in memory", streamed.stderr)
            self.assertEqual(streamed.stdout, in_memory.stdout)
            self.assertTrue(json.loads(streamed.stdout)["rows"])

    def test_capture_windows_stream(self):
        """Issue 31: a file with a capture window was read in memory; the stream leaves out
        the GPU work of calls outside the window as the in-memory path does: the same bytes."""
        for args, env in (((), {"GPROF_CAPTURE": "nvtx:forward"}),
                          (("--profiler-window", "2:4"), {"GPROF_CAPTURE": "cudaProfilerApi"})):
            self.check(self.record("train_loop", *args, env=env))

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_generated_capture_windows(self):
        with tempfile.TemporaryDirectory() as d:
            paths = generate(d, "300K", "--ops-per-step", "20", "--seed", "7",
                             "--capture-window", "2:9,12:13,15:1000")
            self.check(paths)

    def test_takeovers_stream(self):
        """Issue 31: external correlation and CUPTI gaps (another tool took CUPTI over) were
        read in memory; they stream now, to the same findings."""
        files = (self.record("train_loop", env={"GPROF_FAKE_CUPTI": "subscriber_taken"}) +
                 self.record("kineto_takeover", "--before", "8", "--during", "3", "--after", "12",
                             "--pause-ms", "300", "--subscribe"))
        for path in files:
            self.check([path], [["--format", "json", *LOW], []])

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_generated_takeovers(self):
        with tempfile.TemporaryDirectory() as d:
            paths = generate(d, "300K", "--ops-per-step", "20", "--seed", "7", "--takeover",
                             "3:6,10:12")
            self.check(paths, [["--format", "json", *LOW], []])

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_generated_ids_that_wrap(self):
        with tempfile.TemporaryDirectory() as d:
            paths = generate(d, "600K", "--first-correlation", "4294900000", "--takeover", "3:5")
            self.check(paths, [["--format", "json", *LOW], []])
            # The ids wrap before the takeover.
            before = os.path.join(d, "before")
            os.mkdir(before)
            paths = generate(before, "300K", "--first-correlation", "4294967000", "--takeover",
                             "2:4")
            self.check(paths, [["--format", "json", *LOW]])

    def test_a_file_the_stream_cannot_take_is_read_in_memory_with_a_note(self):
        files = self.record("train_loop", env=WRAPPING)
        streamed = gpuprof_run("analyze", ["--format", "json", *LOW], files)
        self.assertEqual(streamed.returncode, 0, streamed.stderr)
        self.assertIn(f"gpuprof: note: {files[0]}: read in memory (correlation ids too far apart "
                      "to unwrap as they come)\n",
                      streamed.stderr)
        self.assertEqual(streamed.stdout,
                         gpuprof_run("analyze", ["--format", "json", *LOW], files,
                                     stream=False).stdout)

    def test_only_the_file_the_stream_cannot_take_is_read_in_memory(self):
        """Issue 31: one file the stream declined made analyze read every file in memory; now
        that file alone is, the others stream, and the findings are the in-memory path's."""
        wrapping = self.record("train_loop", env=WRAPPING)
        others = self.record("threads_streams") + self.record("more_apis")
        for files in (wrapping + others, others + wrapping):
            for args in (["--format", "json", *LOW], ["--format", "json", "--range", "*", *LOW],
                         []):
                streamed = gpuprof_run("analyze", args, files)
                self.assertEqual(streamed.returncode, 0, streamed.stderr)
                self.assertEqual(streamed.stderr.count("read in memory"), 1, streamed.stderr)
                self.assertIn(f"gpuprof: note: {wrapping[0]}: read in memory (", streamed.stderr)
                self.assertEqual(streamed.stdout,
                                 gpuprof_run("analyze", args, files, stream=False).stdout, args)

    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_the_same_findings_for_any_jobs(self):
        """analyze reads and prepares several files at once (--jobs) and feeds the tallies in
        file order: the same bytes and notes for 1, 2 and 5 threads, with a file the stream
        declines (read in memory on a worker) among generated ranks whose GPU lags; and the
        in-memory path's findings."""
        wrapping = self.record("train_loop", env=WRAPPING)
        with tempfile.TemporaryDirectory() as d:
            ranks = generate(d, "400K", "--ranks", "3", "--gpu-lag", "2", "--ops-per-step", "40",
                             "--seed", "11")
            files = ranks[:1] + wrapping + ranks[1:]
            for args in (["--format", "json", *LOW], ["--format", "json", "--range", "*", *LOW]):
                runs = [gpuprof_run("analyze", [*args, "--jobs", jobs], files)
                        for jobs in ("1", "2", "5")]
                for run in runs:
                    self.assertEqual(run.returncode, 0, run.stderr)
                    self.assertEqual(run.stdout, runs[0].stdout, args)
                    self.assertEqual(run.stderr, runs[0].stderr, args)
                self.assertEqual(runs[0].stderr.count("read in memory"), 1, runs[0].stderr)
                self.assertEqual(runs[0].stdout,
                                 gpuprof_run("analyze", args, files, stream=False).stdout, args)
                document = json.loads(runs[0].stdout)
                self.assertEqual([f["path"] for f in document["files"]], files)
                self.assertGreaterEqual(len(document["findings"]), 5)

    def test_a_bad_file_among_others_is_an_error_for_any_jobs(self):
        files = self.record("train_loop") + self.record("more_apis")
        missing = os.path.join(self.tmp, "missing.gprof")
        for jobs in ("1", "3"):
            run = gpuprof_run("analyze", ["--jobs", jobs], [files[0], missing, files[1]])
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertIn(missing, run.stderr)

    def test_diff_notes_a_file_read_in_memory_once(self):
        """diff reads each file twice (rows, then findings): one note per file, not two."""
        files = self.record("train_loop", env=WRAPPING)
        copy = files[0] + ".copy.gprof"
        shutil.copyfile(files[0], copy)
        result = gpuprof_run("diff", [], [files[0], copy])
        self.assertIn(result.returncode, (0, 1), result.stderr)
        for path in (files[0], copy):
            self.assertEqual(result.stderr.count(f"gpuprof: note: {path}: read in memory ("), 1,
                             result.stderr)


@unittest.skipUnless(GEN, "GPUPROF_GEN not set")
class Memory(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.path = generate(cls.dir.name, MEMORY_RECORDS)[0]

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def peak(self, *args, declined=()):
        # meson's MALLOC_PERTURB_ writes over freed memory: untouched pages would count.
        env = {k: v for k, v in env_for(True).items() if k != "MALLOC_PERTURB_"}
        with open(os.devnull, "w") as null:
            child = subprocess.Popen([GPUPROF, *args], stdout=null, stderr=subprocess.PIPE,
                                     env=env)
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        stderr = child.stderr.read().decode()
        child.stderr.close()
        self.assertIn(os.waitstatus_to_exitcode(status), (0, 1), stderr)
        self.assertEqual(stderr.count("read in memory"), len(declined), stderr)
        for path in declined:
            self.assertIn(f"gpuprof: note: {path}: read in memory (", stderr)
        return usage.ru_maxrss * 1024

    # In memory, the findings took ~110 bytes a record (330 MB for analyze, 400 MB for diff
    # here); streamed, 64 MB for analyze and 117 MB for diff at 4M records, and flat in the
    # records. diff with --jobs 2 or more (the default on CI's two cores) reads the two sides'
    # findings at once: 154 MB at 3M records against 80 MB with --jobs 1. Issue 13's bound is
    # 256 MB whatever the records.
    def test_analyze_peak_memory(self):
        peak = self.peak("analyze", "--quiet", self.path)
        self.assertLess(peak, 192 * 2**20, f"{peak / 2**20:.0f} MB")

    def test_diff_peak_memory(self):
        peak = self.peak("diff", "--quiet", self.path, self.path)
        self.assertLess(peak, 192 * 2**20, f"{peak / 2**20:.0f} MB")

    def test_analyze_peak_memory_of_files_read_at_once(self):
        """--jobs N reads N files at once, each with sorts of its own (2 MiB each, not 8)."""
        with tempfile.TemporaryDirectory() as d:
            paths = generate(d, MEMORY_RECORDS, "--ranks", "4")
            peak = self.peak("analyze", "--quiet", "--jobs", "4", *paths)
            self.assertLess(peak, 192 * 2**20, f"{peak / 2**20:.0f} MB")

    def test_analyze_peak_memory_of_a_takeover(self):
        """Issue 31: a file another tool took CUPTI over (external correlation, CUPTI gaps) was
        read in memory; streamed, its peak stays with the others'."""
        with tempfile.TemporaryDirectory() as d:
            path = generate(d, MEMORY_RECORDS, "--takeover", "5:20,40:41")[0]
            peak = self.peak("analyze", "--quiet", path)
            self.assertLess(peak, 192 * 2**20, f"{peak / 2**20:.0f} MB")


    def test_analyze_peak_memory_beside_a_file_read_in_memory(self):
        """Issue 31: a file the stream declines made analyze read every file in memory, this
        one's 3M records too (~330 MB); now the declined file alone is."""
        with tempfile.TemporaryDirectory() as d:
            declined = run_program([program("train_loop")], d, env=WRAPPING).files
            self.assertTrue(declined)
            peak = self.peak("analyze", "--quiet", *declined, self.path, declined=declined)
            self.assertLess(peak, 192 * 2**20, f"{peak / 2**20:.0f} MB")

if __name__ == "__main__":
    unittest.main()
