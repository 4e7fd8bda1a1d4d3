"""Files at scale (issue 13): gpuprof-gen's files read by every command with the counts it
predicts and nothing lost, progress on a terminal and never in a pipe, and the peak memory of
`gpuprof report` on a 20M-record generated file under a bound."""

import json
import os
import pty
import re
import select
import shutil
import subprocess
import tempfile
import unittest

from gprof_e2e import GPUPROF, gpuprof

GEN = os.environ.get("GPUPROF_GEN", "")
# Records of the memory test's file (about 10 s on 2 cores).
MEMORY_RECORDS = os.environ.get("GPROF_SCALE_MEMORY_RECORDS", "20M")
# Records of the trace's memory test (about 5 s on 2 cores).
TRACE_MEMORY_RECORDS = os.environ.get("GPROF_SCALE_TRACE_MEMORY_RECORDS", "4M")


def generate(outdir, records, *more, name="gen-rank%r.gprof"):
    out = subprocess.run([GEN, "--records", str(records), "-o", os.path.join(outdir, name),
                          *more],
                         capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout)


def info_counts(path):
    text = gpuprof("info", path).stdout
    api = int(re.search(r"^Records:\s+(\d+) API calls? on (\d+) threads?, (\d+) kernel launch",
                        text, re.M).group(1))
    threads = int(re.search(r"on (\d+) threads?", text).group(1))
    launches = int(re.search(r"(\d+) kernel launch", text).group(1))
    gpu = int(re.search(r"^GPU records:\s+(\d+)", text, re.M).group(1))
    return text, api, threads, launches, gpu


def dump_count(path, which):
    out = subprocess.run([GPUPROF, "dump", "--records", which, path], capture_output=True,
                         text=True, check=True, timeout=300).stdout
    return sum(1 for line in out.splitlines() if line.strip())


class Generator(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="gprof-scale-")
        cls.summary = generate(cls.dir, 60001, "--ranks", "2", "--threads", "5", "--seed", "7",
                               "--ops-per-step", "40")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_exact_record_counts(self):
        files = self.summary["files"]
        self.assertEqual(self.summary["records"], 60001)
        self.assertEqual([f["records"] for f in files], [30001, 30000])
        for f in files:
            self.assertEqual(f["records"], f["api_records"] + f["gpu_records"] + f["range_events"])
            self.assertEqual(os.path.getsize(f["path"]), f["bytes"])

    def test_info_counts_what_the_generator_wrote(self):
        for f in self.summary["files"]:
            text, api, threads, launches, gpu = info_counts(f["path"])
            self.assertEqual(api, f["api_records"], text)
            self.assertEqual(threads, 5, text)
            self.assertEqual(launches, f["launches"], text)  # graph launches are not counted
            self.assertEqual(gpu, f["gpu_records"], text)
            self.assertRegex(text, r"Integrity:\s+complete\n")
            self.assertRegex(text, rf"Frames:\s+{f['frames']} good, 0 bad")
            self.assertRegex(text, r"Losses:\s+none")
            self.assertRegex(text, rf"Rank:\s+{f['rank']}\n")
            self.assertNotIn("the footer counts", text)  # said only when it disagrees
            self.assertRegex(text, r"GPU records:\s+\d+ \(.*\); 0 unpaired")
            # NVTX events: every push/pop, mark and thread name (dump pairs ranges, so count
            # the events through the API/GPU totals instead).
            self.assertEqual(dump_count(f["path"], "api"), f["api_records"])
            self.assertEqual(dump_count(f["path"], "gpu"), f["gpu_records"])

    def test_same_seed_same_bytes(self):
        with tempfile.TemporaryDirectory() as other:
            again = generate(other, 60001, "--ranks", "2", "--threads", "5", "--seed", "7",
                             "--ops-per-step", "40")
            changed = generate(other, 60001, "--ranks", "2", "--threads", "5", "--seed", "8",
                               "--ops-per-step", "40", name="seed8-%r.gprof")
            for a, b, c in zip(self.summary["files"], again["files"], changed["files"]):
                with open(a["path"], "rb") as fa, open(b["path"], "rb") as fb, \
                        open(c["path"], "rb") as fc:
                    first = fa.read()
                    self.assertEqual(first, fb.read())
                    self.assertNotEqual(first, fc.read())

    def test_every_reader_accepts_the_files(self):
        paths = [f["path"] for f in self.summary["files"]]
        report = gpuprof("report", "--group-by", "rank", "--limit", "0", *paths)
        self.assertEqual(report.stderr, "")
        for row in ("ProfilerStep#0", "aten::linear", "AddmmBackward0", "cudaGraphLaunch",
                    "cudaMemcpyAsync", "Memcpy HtoD (Pinned -> Device)", "Memset (Device)",
                    "ampere_sgemm_128x64_tn", "cudaStreamSynchronize"):
            self.assertIn(row, report.stdout)
        self.assertEqual(gpuprof("report", "--group-by", "seq", paths[0]).stderr, "")
        self.assertEqual(gpuprof("report", "--view", "launches", *paths).stderr, "")
        self.assertEqual(gpuprof("report", "--view", "memory", *paths).stderr, "")
        trace = os.path.join(self.dir, "t.json")
        out = gpuprof("trace", *paths, "-o", trace)
        self.assertRegex(out.stderr, r"^gpuprof: wrote .* events from 2 files\)\n$")
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        # A flow from every launch to its kernel: the GPU records all paired.
        self.assertTrue(any(e.get("cat") == "kernel" for e in events))
        db = os.path.join(self.dir, "t.sqlite")
        out = gpuprof("export", *paths, "-o", db)
        self.assertRegex(out.stderr, r"^gpuprof: wrote [^\n]* rows from 2 files")
        diff = gpuprof("diff", "--base", paths[0], "--new", paths[1], check=False)
        self.assertIn(diff.returncode, (0, 1), diff.stderr)
        self.assertNotIn("error", diff.stderr)


    def test_jobs_do_not_change_the_output(self):
        """--jobs N reads the files on N threads and merges in file order: the same bytes for
        any N, in every view and in diff (both sides read in one pass)."""
        paths = [f["path"] for f in self.summary["files"]]
        # The ranks and the same files again: more files than jobs, rows in several files.
        files = paths + paths[::-1]
        for args in (["--limit", "0"], ["--group-by", "rank", "--limit", "0"],
                     ["--group-by", "thread", "--limit", "0"],
                     ["--range", "ProfilerStep*", "--format", "csv"],
                     ["--view", "kernels", "--format", "json"], ["--view", "memory"],
                     ["--view", "launches", "--limit", "0"], ["--top-level-only"]):
            outputs = [gpuprof("report", "--jobs", jobs, *args, *files).stdout
                       for jobs in ("1", "2", "3")]
            self.assertTrue(outputs[0], args)
            self.assertEqual(outputs[1], outputs[0], args)
            self.assertEqual(outputs[2], outputs[0], args)
        # A rank repeated makes each file a run of its own: two runs against three.
        diffs = [gpuprof("diff", "--jobs", jobs, "--limit", "0", "--base", paths[0], paths[0],
                         "--new", paths[1], paths[1], paths[1], check=False)
                 for jobs in ("1", "2")]
        self.assertIn(diffs[0].returncode, (0, 1), diffs[0].stderr)
        self.assertEqual(diffs[1].returncode, diffs[0].returncode)
        self.assertEqual(diffs[1].stdout, diffs[0].stdout)


    def test_decoders_do_not_change_one_files_output(self):
        """One file on N cores: its frames are decoded on N - 1 threads and handed to the
        stream in file order (formats/read/pipelined_reader.h): the same bytes for any N."""
        summary = generate(self.dir, "400K", "--seed", "9", name="decoders-rank%r.gprof")
        path = summary["files"][0]["path"]
        self.assertGreater(summary["files"][0]["frames"], 8)
        for args in ([], ["--view", "kernels", "--limit", "0"],
                     ["--step", "ProfilerStep*", "--limit", "0", "--format", "csv"]):
            outputs = [gpuprof("report", "--quiet", "--jobs", jobs, *args, path).stdout
                       for jobs in ("1", "2", "4", "7")]
            self.assertTrue(outputs[0], args)
            for out in outputs[1:]:
                self.assertEqual(out, outputs[0], args)


def run_on_terminal(args, env):
    """Runs gpuprof with stderr on a pseudo-terminal; returns (status, stdout, terminal text)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([GPUPROF, *args], stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    out = b""
    while True:
        ready, _, _ = select.select([master, proc.stdout], [], [], 10)
        if not ready:
            break
        if master in ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's last writer has gone
                chunk = b""
            if not chunk and proc.poll() is not None:
                break
            seen += chunk
        if proc.stdout in ready:
            chunk = proc.stdout.read1(65536)
            if chunk:
                out += chunk
            elif proc.poll() is not None:
                rest = b""
                try:
                    while True:
                        more = os.read(master, 65536)
                        if not more:
                            break
                        rest += more
                except OSError:
                    pass
                seen += rest
                break
    out += proc.stdout.read()
    proc.wait(timeout=120)
    os.close(master)
    return proc.returncode, out.decode(), seen.decode(errors="replace")


class Progress(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="gprof-progress-")
        cls.path = generate(cls.dir, "300K")["files"][0]["path"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def env(self, **more):
        e = dict(os.environ, GPUPROF_PROGRESS_DELAY_MS="0")
        e.update(more)
        return e

    def test_on_a_terminal(self):
        trace = os.path.join(self.dir, "p.json")
        for args in (["report", self.path], ["info", self.path],
                     ["trace", self.path, self.path, "-o", trace],
                     ["diff", self.path, self.path]):
            status, out, term = run_on_terminal(args, self.env())
            self.assertIn(status, (0, 1), term)
            self.assertRegex(term, r"\rgpuprof: read [0-9.]+ [KMG]B of [0-9.]+ MB \(\d+%\), "
                                   r"[0-9.]+[KM]? records/s, ETA \S+", args)
            # Erased before the results: the line ends in spaces and a carriage return.
            self.assertRegex(term, r"\r +\r", args)
            if args[0] != "trace":
                self.assertTrue(out, args)

    def test_trace_shows_its_writing(self):
        # Once every byte is read, trace's writing of the events (more than half of a
        # large trace's time) has a line of its own, up to all of them.
        trace = os.path.join(self.dir, "w.json")
        for args in (["trace", self.path, "-o", trace],
                     ["trace", "--jobs", "2", self.path, self.path, "-o", trace + ".gz"]):
            status, out, term = run_on_terminal(args, self.env())
            self.assertEqual(status, 0, term)
            self.assertRegex(term, r"\rgpuprof: read ", args)
            lines = re.findall(r"\rgpuprof: wrote ([0-9.]+[KM]?) of ([0-9.]+[KM]?) events "
                               r"\((\d+)%\), [0-9.]+[KM]? events/s, ETA \S+", term)
            self.assertTrue(lines, term)
            # Each file's events join the total as its writing starts: the last total is
            # all of them (the summary's count, rounded as the line shows it).
            written = int(re.search(r"\((\d+) events from", term).group(1))
            shown = float(lines[-1][1].rstrip("KM")) * {"K": 1e3, "M": 1e6}.get(
                lines[-1][1][-1], 1)
            self.assertAlmostEqual(shown / written, 1, delta=0.01, msg=lines[-1])
            percents = [int(p) for _, _, p in lines]
            self.assertEqual(percents, sorted(percents), term)
            self.assertRegex(term, r"\r +\r", args)

    def test_not_in_a_pipe(self):
        for args in (["report", self.path], ["info", self.path]):
            done = subprocess.run([GPUPROF, *args], capture_output=True, text=True,
                                  env=self.env(), check=True)
            self.assertNotIn("records/s", done.stderr)
            self.assertNotIn("\r", done.stderr)

    def test_quiet(self):
        for args in (["report", "--quiet", self.path], ["info", "-q", self.path]):
            status, out, term = run_on_terminal(args, self.env())
            self.assertEqual(status, 0, term)
            self.assertNotIn("records/s", term)

    def test_not_before_a_second(self):
        # The default: a command this short shows nothing.
        env = dict(os.environ)
        env.pop("GPUPROF_PROGRESS_DELAY_MS", None)
        status, out, term = run_on_terminal(["info", self.path], env)
        self.assertEqual(status, 0, term)
        self.assertNotIn("records/s", term)


def peak_rss(args):
    """Runs gpuprof; returns (exit status, stderr, peak RSS in bytes from getrusage)."""
    # meson sets MALLOC_PERTURB_, which writes over freed memory: pages a run would
    # leave untouched count in its peak (2.6 GB instead of 2.0 GB for report at 20M).
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
    with open(os.devnull, "w") as null:
        child = subprocess.Popen([GPUPROF, *args], stdout=null, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(child.pid, 0)
    return os.waitstatus_to_exitcode(status), child.stderr.read().decode(), \
        usage.ru_maxrss * 1024


class Memory(unittest.TestCase):
    def test_trace_peak_memory(self):
        """Peak RSS of `gpuprof trace` on a generated file whose records are two thirds NVTX
        events: flat, not ~50 bytes per record as when a file's ranges were paired in
        memory."""
        with tempfile.TemporaryDirectory() as d:
            summary = generate(d, TRACE_MEMORY_RECORDS)
            records = summary["records"]
            path = summary["files"][0]["path"]
            self.assertGreater(summary["files"][0]["range_events"], records // 2)
            # Written to a device: no gigabyte of JSON on the disk, and no compression.
            status, stderr, peak = peak_rss(["trace", "--quiet", path, "-o", os.devnull])
            self.assertEqual(status, 0, stderr)
            self.assertRegex(stderr, r"\(\d+ events from 1 file\)")
            # Ranges are paired as they stream (tools/trace/range_stream.h): 37 MB here and
            # 40 MB at 20M records (222 MB and 897 MB before). With the default --jobs (two
            # threads on two cores) 62 MB, and once 97 MB on a loaded machine (2026-11-28; why was
            # not found: frames decoded ahead of a descheduled main thread, we think). Issue 13's bound is 256 MB whatever the records;
            # this one leaves 2x for noise and fails at 4M records when memory grows with
            # the ranges again.
            bound = 128 * 2**20
            self.assertLess(peak, bound, f"{peak / 2**20:.0f} MB for {records} records")

    def test_report_peak_memory(self):
        """Peak RSS of `gpuprof report` on a generated file (getrusage of the child)."""
        with tempfile.TemporaryDirectory() as d:
            summary = generate(d, MEMORY_RECORDS)
            records = summary["records"]
            path = summary["files"][0]["path"]
            # meson sets MALLOC_PERTURB_, which writes over freed memory: pages a run would
            # leave untouched count in its peak (2.6 GB instead of 2.0 GB here).
            env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
            with open(os.devnull, "w") as null:
                child = subprocess.Popen([GPUPROF, "report", "--quiet", path], stdout=null,
                                         stderr=subprocess.PIPE, env=env)
                _, status, usage = os.wait4(child.pid, 0)
            stderr = child.stderr.read().decode()
            self.assertEqual(os.waitstatus_to_exitcode(status), 0, stderr)
            self.assertNotIn("read in memory", stderr)
            peak = usage.ru_maxrss * 1024
            # The report streams (tools/analysis/aggregate/ops_stream.h): its memory follows
            # the distinct rows and the records in flight, not the file: 58 MB here, 71 MB
            # at 100M records (before streaming: 2.0 GB here). Issue 13's bound is 256 MB
            # whatever the records; this one leaves 2x for noise.
            bound = 128 * 2**20
            self.assertLess(peak, bound, f"{peak / 2**20:.0f} MB for {records} records")
            # The default --jobs is the core count, 64 to 224 on a GPU node: a file is
            # decoded on two threads at most (parallel_files.h), where each core once
            # decoded frames ahead, ~5 MB each in flight (589 MB at 10M records with 64).
            for view in ("ops", "launches"):
                status, stderr, peak = peak_rss(["report", "--quiet", "--jobs", "64",
                                                 "--view", view, path])
                self.assertEqual(status, 0, stderr)
                self.assertLess(peak, bound, f"--jobs 64, {view}: {peak / 2**20:.0f} MB")
            # The launches and memory views stream too (tools/gpuprof/report/view_streams.h): the
            # launches' exact medians from an external sort. In memory they took ~50 bytes
            # a record (152 MB at 2M records); streamed, 64 MB at 2M and 59 MB at 10M.
            for view in ("launches", "memory"):
                status, stderr, peak = peak_rss(["report", "--quiet", "--jobs", "1",
                                                 "--view", view, path])
                self.assertEqual(status, 0, stderr)
                self.assertNotIn("read in memory", stderr)
                self.assertLess(peak, bound, f"{view}: {peak / 2**20:.0f} MB for {records}")
