"""`gpuprof diff BASE NEW` on files real processes wrote under the shim, on the fakes: the gate's
verdict and exit status, the rows it names, several runs per side and the noise test, JSON
report baselines, unreadable input, every output format, and the CI job of docs/diff.md
(record, diff against a kept baseline.json, Markdown summary, failing exit status)."""

import json
import os
import re
import subprocess
import unittest
import xml.etree.ElementTree as ET

from gprof_e2e import (E2ETestCase, FAKE_LIBRARY_PATH, GPUPROF, LIBGPROF, gpuprof, program,
                       run_program)

MATMUL = "matmul(float*, float const*, int)"
RELU = "relu(float*, int)"
SCALE = "scale(float*, float, int)"
EXTRA_COPY = "Memcpy DtoH (Device -> Pageable)"


def diff(*args):
    """gpuprof diff ARGS; returns the completed process (any exit status)."""
    return gpuprof("diff", *args, check=False)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def failure_lines(stdout):
    """The lines under the text verdict: '  SUBJECT: RULE: VALUES'."""
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("REGRESSION:") or line.startswith("OK:"):
            return [l.strip() for l in lines[i + 1:] if l.startswith("  ")]
    raise AssertionError(f"no verdict in:\n{stdout}")


class Diff(E2ETestCase):
    def workload(self, name, *args, env=None):
        """One run of diff_workload in a directory of its own; returns its sidecar file."""
        outdir = os.path.join(self.tmp, name)
        os.makedirs(outdir, exist_ok=True)
        run = run_program([program("diff_workload"), *args], outdir, env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(run.files), 1, run.files)
        return run.files[0]

    def runs(self, name, kernel_ns):
        """A directory with one run per kernel time: a side of several runs."""
        outdir = os.path.join(self.tmp, name)
        os.makedirs(outdir)
        for ns in kernel_ns:
            run = run_program([program("diff_workload")], outdir,
                              env={"GPROF_FAKE_KERNEL_NS": str(ns)})
            self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(os.listdir(outdir)), len(kernel_ns))
        return outdir

    def paired_runs(self, base_name, base_ns, new_name, new_ns):
        """Two sides of several runs, recorded in turns (base, new, base, ...), so that a
        machine that gets busier or quieter meanwhile moves both sides' CPU times alike: one
        side recorded after the other once had every CPU row of a CI run outside the noise."""
        dirs = []
        for name in (base_name, new_name):
            dirs.append(os.path.join(self.tmp, name))
            os.makedirs(dirs[-1])
        for i in range(max(len(base_ns), len(new_ns))):
            for outdir, kernel_ns in zip(dirs, (base_ns, new_ns)):
                if i < len(kernel_ns):
                    run = run_program([program("diff_workload")], outdir,
                                      env={"GPROF_FAKE_KERNEL_NS": str(kernel_ns[i])})
                    self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(os.listdir(dirs[0])), len(base_ns))
        self.assertEqual(len(os.listdir(dirs[1])), len(new_ns))
        return dirs

    def setUp(self):
        super().setUp()
        self.base = self.workload("base")

    def test_identical_runs_pass(self):
        same = self.workload("same")
        out = diff(self.base, same)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("OK: no rule failed (5 rules)", out.stdout)
        self.assertEqual(failure_lines(out.stdout), [])
        self.assertIn("noise test: none (one run on each side", out.stdout)

    def test_extra_copy_fails_naming_the_copy(self):
        copy = self.workload("copy", "--extra-copy")
        out = diff(self.base, copy)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        failures = failure_lines(out.stdout)
        # The workload already copies DtoH once at its end: 1 -> 6 copies.
        self.assertIn(f"memcpy {EXTRA_COPY}: matched.gpu.count:+0%: 1 -> 6 (+5, +500.0%)", failures)
        self.assertTrue(any(f.startswith(f"memcpy {EXTRA_COPY}: matched.self_cuda:+10%")
                            for f in failures), failures)
        self.assertFalse(any(MATMUL in f or RELU in f for f in failures), failures)

    def test_slower_kernel_fails_naming_it(self):
        slow = self.workload("slow", env={"GPROF_FAKE_KERNEL_NS_OVERRIDE": "matmul=40000"})
        out = diff(self.base, slow)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        failures = failure_lines(out.stdout)
        self.assertIn(f"kernel {MATMUL}: matched.self_cuda:+10%: 100.000us -> 200.000us "
                      "(+100.000us, +100.0%)", failures)
        self.assertTrue(any(f.startswith("Self CUDA time total: total.self_cuda:+5%")
                            for f in failures), failures)
        self.assertFalse(any(RELU in f or SCALE in f for f in failures), failures)
        # The kernel's row and the total; not cudaLaunchKernel's, which has no CUDA time (as in
        # torch's tables: the kernel is the op's, never the runtime event's).
        self.assertIn("REGRESSION: 2 of 5 rules failed: 2 failures on 1 row and 1 total", out.stdout)

    def test_metrics_narrow_the_tables(self):
        slow = self.workload("slow", env={"GPROF_FAKE_KERNEL_NS_OVERRIDE": "matmul=40000"})
        out = diff("--metrics", "count,self_cuda", "--name-width", "30", self.base, slow)
        self.assertEqual(out.returncode, 1, out.stderr)
        titles = out.stdout.splitlines()[5]
        self.assertEqual(titles.split(), ["#", "of", "Calls", "Self", "CUDA"])
        self.assertLessEqual(max(len(l) for l in out.stdout.splitlines()
                                 if not l.startswith(("  rows by", "::"))), 130)
        md = diff("--format", "md", "--metrics", "self_cuda", self.base, slow).stdout
        self.assertIn("| Row | Status | Self CUDA |", md)
        bad = diff("--metrics", "count,bogus", self.base, slow)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--metrics: unknown metric 'bogus'", bad.stderr)

    def test_markdown_fits_a_pull_request_comment(self):
        """About 800 px of a GitHub comment: compact tables, the failed cells marked, the rows
        that changed only within noise folded into a <details> block."""
        base, new = self.paired_runs("md-base", [19000, 19000, 22000],
                                     "md-new", [40000, 41000, 42000])
        md = diff("--format", "md", base, new).stdout
        tables = [l for l in md.splitlines() if l.startswith("|")]
        self.assertTrue(tables)
        # What GitHub shows: code spans and escapes take no room.
        shown = [re.sub(r"[`\\*]", "", l) for l in tables]
        # 115: the runs block's longest line names a default rule ("matched.self_cuda:+10%").
        self.assertLessEqual(max(len(l) for l in shown), 115, max(shown, key=len))
        changes = md[md.index("#### Changes"):md.index("#### Totals")]
        header = next(l for l in changes.splitlines() if l.startswith("| Row"))
        self.assertEqual(header, "| Row | Status | # of Calls | Self CUDA | CPU total |")
        matmul = next(l for l in changes.splitlines() if MATMUL in l)
        cells = [c.strip() for c in matmul.strip("|").split("|")]
        self.assertEqual(cells[1], "regression")
        self.assertTrue(cells[3].startswith("❌ **"), cells)  # the failed Self CUDA
        self.assertFalse(cells[2].startswith("❌"), cells)    # calls did not change
        self.assertIn("❌ marks a value a rule failed on", changes)
        # CPU times of the other rows moved by noise alone: folded away, not in the main table.
        self.assertIn("changed only within noise</summary>", changes)
        main, folded = changes.split("<details>")
        self.assertIn(MATMUL, main)
        self.assertTrue(all("within noise" not in l for l in main.splitlines()
                            if l.startswith("|")), main)
        rows = [l for l in folded.splitlines() if l.startswith("| ") and
                not l.startswith(("| Row ", "| :"))]
        self.assertTrue(rows and all("| within noise |" in l for l in rows), folded)

    def test_vanished_kernel_is_listed_and_fails_the_strict_set(self):
        gone = self.workload("gone", "--no-relu")
        # Less work, less GPU time: the default gate lists the kernel and passes.
        out = diff(self.base, gone)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("Vanished rows, only in BASE (1):", out.stdout)
        self.assertEqual(failure_lines(out.stdout), [])
        out = diff("--rules", "strict", self.base, gone)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertEqual(failure_lines(out.stdout),
                         [f"kernel {RELU}: gpu.vanished: 5 calls in BASE, not in NEW"])
        self.assertIn("(the strict gate)", out.stdout)

    def test_noisy_repeats_are_within_noise(self):
        # Medians 19 -> 22 us (+15.8% > 10%), but the ranges of the runs overlap.
        base = self.runs("noisy-base", [19000, 19000, 22000])
        new = self.runs("noisy-new", [19000, 22000, 22000])
        # The GPU rows alone: the runs' CPU times are the loaded machine's noise, and with 3
        # runs a side each CPU row is above on every new run one time in 20 (cudaMalloc +60%
        # failed the CPU total once while a build ran beside the test).
        out = diff("--fail-on", "matched.gpu.self_cuda:+10%", base, new)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("noise test: one-sided Mann-Whitney U of 3 base and 3 new runs: an increase "
                      "fails only when every new run is above every base run (U = 0, level 0.05, "
                      "alpha 0.05)", out.stdout)
        self.assertRegex(out.stdout, re.escape(MATMUL) + r" +kernel +within noise")
        report = json.loads(diff("--format", "json", base, new).stdout)
        matmul = next(r for r in report["rows"] if r["name"] == MATMUL)
        self.assertTrue(matmul["within_noise"])
        self.assertEqual(matmul["metrics"]["self_cuda"]["base"],
                         {"median": 95000.0, "min": 95000.0, "max": 110000.0})
        self.assertEqual(matmul["metrics"]["self_cuda"]["new"],
                         {"median": 110000.0, "min": 95000.0, "max": 110000.0})
        # The same medians with every NEW run above every BASE run: a regression.
        slower = self.runs("slower-new", [23000, 24000, 25000])
        out = diff(base, slower)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertTrue(any(f.startswith(f"kernel {MATMUL}: matched.self_cuda:+10%: 95.000us -> "
                                         "120.000us") for f in failure_lines(out.stdout)),
                        out.stdout)

    def test_one_slow_base_run_does_not_hide_a_regression(self):
        # 9 base runs at 20 us and one at 40 us against 10 runs at 30 us: the ranges overlap,
        # but U = 10 is below 10 against 10's critical value of 27 at alpha 0.05.
        base = self.runs("ten-base", [20000] * 9 + [40000])
        new = self.runs("ten-new", [30000] * 10)
        out = diff("--fail-on", "self_cuda:+10", base, new)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("in at most 27 of 100 pairs (U <= 27, level 0.045, alpha 0.05)", out.stdout)
        self.assertIn(f"kernel {MATMUL}: self_cuda:+10%: 100.000us -> 150.000us (+50.000us, "
                      "+50.0%); runs: BASE 100.000us..200.000us, NEW 150.000us..150.000us",
                      out.stdout)
        # A stricter --alpha needs a clearer separation; 0.001 still finds this one.
        strict = diff("--alpha", "0.001", "--fail-on", "self_cuda:+10", base, new)
        self.assertEqual(strict.returncode, 1, strict.stdout)
        self.assertIn("alpha 0.001)", strict.stdout)
        report = json.loads(diff("--format", "json", base, new).stdout)
        self.assertEqual(report["noise_test"]["test"], "mann-whitney-u")
        self.assertEqual(report["noise_test"]["critical_u"], 27)

    def test_sides_as_lists_of_runs(self):
        # --base / --new take several files each, sidecar files or JSON reports, a run each.
        a, b = self.workload("a"), self.workload("b")
        slow = [self.workload(f"slow{i}", env={"GPROF_FAKE_KERNEL_NS": "40000"})
                for i in range(3)]
        reports = []
        for i, path in enumerate((self.base, a, b)):
            reports.append(os.path.join(self.tmp, f"base{i}.json"))
            with open(reports[-1], "w") as f:
                f.write(gpuprof("report", "--format", "json", "--limit", "0", path).stdout)
        out = diff("--base", *reports, "--new", *slow)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("(3 runs)", out.stdout.splitlines()[1])
        self.assertIn("level 0.05, alpha 0.05", out.stdout)
        self.assertEqual(diff("--base", self.base, a, "--new", b).returncode, 0)
        for args, message in ((["--base", self.base], "--base and --new go together"),
                              (["--base", self.base, "--new", a, b],
                               "give the sides either as BASE NEW or with --base and --new"),
                              ([self.base], "two sides to compare are needed")):
            if message.startswith("give"):
                args = [self.base, "--base", a, "--new", b]
            out = diff(*args)
            self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
            self.assertIn(f"gpuprof: error: {message}", out.stderr)

    def test_a_flat_directory_of_ranks_is_one_job(self):
        """`record -o out/%r.gprof` under a launcher: the files of distinct ranks directly in a
        directory are one run of the job, so that its JSON report is a baseline for it."""
        def job(name):
            outdir = os.path.join(self.tmp, name)
            os.makedirs(outdir)
            for rank in ("0", "1"):
                run = run_program([program("diff_workload")], outdir, env={"RANK": rank})
                self.assertEqual(run.returncode, 0, run.stderr)
            return outdir
        base, new = job("job-base"), job("job-new")
        baseline = os.path.join(self.tmp, "job.json")
        with open(baseline, "w") as f:
            f.write(gpuprof("report", "--format", "json", "--limit", "0", base).stdout)
        for side in (baseline, base):
            out = diff(side, new)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            self.assertIn(f"new:  {new} (1 run)", out.stdout)
            self.assertRegex(out.stdout, re.escape(MATMUL) + r" +kernel +same +10 +10 ")
        # The same job's files listed one by one (a shell glob) are one run too.
        files = sorted(os.path.join(new, f) for f in os.listdir(new))
        out = diff("--base", baseline, "--new", *files)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("(1 run)", out.stdout.splitlines()[2])

    def test_comparisons_that_cannot_mean_anything_are_exit_2(self):
        a = self.workload("a")
        # A report of several repeated runs adds them up: against one run it would pass
        # any regression.
        summed = os.path.join(self.tmp, "summed.json")
        with open(summed, "w") as f:
            f.write(gpuprof("report", "--format", "json", "--limit", "0", self.base, a).stdout)
        out = diff(summed, a)
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertIn("the runs add up different numbers of processes (per run, BASE: 2; NEW: 1)",
                      out.stderr)
        # A --range that matches nothing would compare nothing and pass.
        out = diff("--range", "nomatch*", self.base, a)
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertIn("--range 'nomatch*' matches no range on either side", out.stderr)
        # Thread and process ids differ from run to run; so does the pid of a run without rank.
        for key in ("thread", "process"):
            out = diff("--group-by", key, self.base, a)
            self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
            self.assertIn(f"--group-by {key} keys rows by", out.stderr)
        out = diff("--group-by", "rank", self.base, a)
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertIn(f"{self.base}: no rank (RANK,", out.stderr)
        ranked = [self.workload(f"rank{i}", env={"RANK": "0"}) for i in range(2)]
        out = diff("--group-by", "rank", *ranked)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertRegex(out.stdout, re.escape(MATMUL) + r" +kernel +0 +same ")

    def test_a_side_without_gpu_records_is_exit_2(self):
        # Recorded with CUPTI unavailable: Self CUDA would drop to 0 (-100%) and pass the gate.
        cpu_only = self.workload("cpu_only", env={"GPROF_CUPTI": "0"})
        md = os.path.join(self.tmp, "diff.md")
        junit = os.path.join(self.tmp, "diff.xml")
        out = diff(self.base, cpu_only, "--github", "--output-md", md, "--output-junit", junit)
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertIn("NEW has no GPU records", out.stderr)
        self.assertRegex(out.stdout, r"^::error title=gpuprof diff::.*NEW has no GPU records")
        self.assertIn("NEW has no GPU records", read(md))
        self.assertIn("NEW has no GPU records", read(junit))
        # The other way round, and through a JSON report baseline.
        out = diff(cpu_only, self.base)
        self.assertEqual(out.returncode, 2)
        self.assertIn("BASE has no GPU records", out.stderr)
        baseline = os.path.join(self.tmp, "base.json")
        with open(baseline, "w", encoding="utf-8") as f:
            f.write(gpuprof("report", "--format", "json", "--limit", "0", self.base).stdout)
        out = diff(baseline, cpu_only)
        self.assertEqual(out.returncode, 2)
        self.assertIn("NEW has no GPU records", out.stderr)
        # A gate of CPU-side rules only compares them (a threshold no single
        # run's noise reaches on a loaded machine: cudaMemcpy's CPU time once
        # went +1044% between two one-run sides at load average 12).
        out = diff(self.base, cpu_only, "--fail-on", "api.self_cpu:+1000000")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        # A baseline written before reports counted GPU records: its GPU time tells.
        doc = json.loads(read(baseline))
        for f in doc["files"]:
            del f["gpu"]
        old = os.path.join(self.tmp, "old.json")
        with open(old, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        out = diff(old, cpu_only)
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertIn("NEW has no GPU records", out.stderr)
        # Both sides CPU-only: their CPU times still compare.
        other = self.workload("cpu_only_2", env={"GPROF_CUPTI": "0"})
        out = diff(cpu_only, other)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def test_unreadable_input_is_exit_2(self):
        truncated = os.path.join(self.tmp, "truncated.json")
        report = gpuprof("report", "--format", "json", "--limit", "0", self.base).stdout
        with open(truncated, "w") as f:
            f.write(report[:len(report) // 2])
        out = diff(truncated, self.base)
        self.assertEqual(out.returncode, 2)
        self.assertIn(f"gpuprof: error: {truncated}: not valid JSON (truncated, or a number too large for a double?)", out.stderr)
        # The files a CI job's later steps read are still written, and say so.
        md, junit, js = (os.path.join(self.tmp, n) for n in ("e.md", "e.xml", "e.json"))
        out = diff(truncated, self.base, "--output-md", md, "--output-junit", junit,
                   "--output-json", js)
        self.assertEqual(out.returncode, 2)
        self.assertTrue(read(md).startswith("### ⚠️ gprof diff: no comparison\n"))
        self.assertEqual(ET.parse(junit).getroot().find("testsuite").get("errors"), "1")
        self.assertEqual(json.loads(read(js))["verdict"], "error")

        wrong = os.path.join(self.tmp, "wrong.json")
        with open(wrong, "w") as f:
            f.write(report.replace('"version": 1', '"version": 9'))
        out = diff(wrong, self.base)
        self.assertEqual(out.returncode, 2)
        self.assertIn("gprof.report version 9 is not supported", out.stderr)

        garbage = os.path.join(self.tmp, "garbage.gprof")
        with open(garbage, "wb") as f:
            f.write(b"\x00garbage, not a sidecar file" * 10)
        out = diff(garbage, self.base)
        self.assertEqual(out.returncode, 2)
        self.assertIn(f"gpuprof: error: {garbage}:", out.stderr)

        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        out = diff(self.base, empty)
        self.assertEqual(out.returncode, 2)
        self.assertIn(f"gpuprof: error: {empty}: no sidecar files in this directory", out.stderr)

        out = diff(self.base, os.path.join(self.tmp, "missing.gprof"))
        self.assertEqual(out.returncode, 2)

        # Not a file to read whole: told apart by its first bytes, at once.
        out = diff("/dev/zero", self.base)
        self.assertEqual(out.returncode, 2)
        self.assertIn("gpuprof: error: /dev/zero:", out.stderr)

        # A file cut before its first records has nothing to compare: neither "every row is
        # new" (exit 1) nor "nothing regressed" (exit 0) on either side.
        with open(self.base, "rb") as f:
            data = f.read()
        header_only = os.path.join(self.tmp, "header_only.gprof")
        # Magic and version (12 bytes), then the header frame: [length][crc32c][payload].
        header_end = 12 + 8 + int.from_bytes(data[12:16], "little")
        with open(header_only, "wb") as f:
            f.write(data[:header_end])
        for sides in ((header_only, self.base), (self.base, header_only)):
            out = diff("--fail-on", "self_cuda:+10", *sides)
            self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
            self.assertIn(f"gpuprof: error: {header_only}: no records: nothing to compare",
                          out.stderr)
        out = diff("--fail-on", "gpu.count:-1", self.base, self.base)
        self.assertEqual(out.returncode, 2)
        self.assertIn("gpuprof: error: --fail-on 'gpu.count:-1': '-1' is not a threshold",
                      out.stderr)

    def test_damaged_sidecar_warns_and_still_compares(self):
        with open(self.base, "rb") as f:
            data = f.read()
        # Into the last frame (the footer): the records before it stay whole.
        at, last = 12, 12  # magic and version; then [length][crc32c][payload] frames
        while at < len(data):
            last = at
            at += 8 + int.from_bytes(data[at:at + 4], "little")
        cut = os.path.join(self.tmp, "cut.gprof")
        with open(cut, "wb") as f:
            f.write(data[:last + 10])
        out = diff(self.base, cut)
        self.assertIn(out.returncode, (0, 1), out.stderr)
        self.assertIn(f"gpuprof: warning: {cut}:", out.stderr)
        self.assertIn("gpuprof diff", out.stdout)

    def test_json_report_baseline(self):
        baseline = os.path.join(self.tmp, "baseline.json")
        with open(baseline, "w") as f:
            f.write(gpuprof("report", "--format", "json", "--limit", "0", self.base).stdout)
        same = self.workload("same")
        out = diff(baseline, same)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn(f"base: {baseline} (JSON report)", out.stdout)
        self.assertEqual(out.stderr, "")
        slow = self.workload("slow", env={"GPROF_FAKE_KERNEL_NS_OVERRIDE": "matmul=40000"})
        out = diff(baseline, slow)
        self.assertEqual(out.returncode, 1)
        self.assertTrue(any(f.startswith(f"kernel {MATMUL}: matched.self_cuda:+10%")
                            for f in failure_lines(out.stdout)))

        # A baseline with only part of the rows, or grouped or cut otherwise, is refused: its
        # missing rows would fail as new ones.
        def made_with(name, *options):
            path = os.path.join(self.tmp, name)
            with open(path, "w") as f:
                f.write(gpuprof("report", "--format", "json", *options, self.base).stdout)
            return path

        # report refuses a --range that matches nothing (exit 2), and the workload has no
        # ranges: a report made with one is the full report with its "ranges" field set.
        def cut_by_range(name, pattern, rows=None):
            doc = json.loads(read(made_with(name, "--limit", "0")))
            doc["ranges"] = [pattern]
            if rows is not None:
                doc["rows"] = rows
            path = os.path.join(self.tmp, name)
            with open(path, "w") as f:
                json.dump(doc, f)
            return path

        for path, message in (
                (made_with("limited.json", "--limit", "3"),
                 "the report holds 3 rows, its --limit: rows may be missing; make baselines "
                 "with --limit 0"),
                (made_with("kernels.json", "--limit", "0", "--view", "kernels"),
                 "the report shows the kernels view"),
                (made_with("top.json", "--limit", "0", "--top-level-only"),
                 "the report was made with --top-level-only"),
                (cut_by_range("ranged.json", "step*"),
                 "its rows are cut by --range 'step*', this diff's by (none)")):
            out = diff(path, same)
            self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
            self.assertIn(f"gpuprof: error: {path}: {message}", out.stderr)
        # The same --range passes that check; the workload has no such range, so the report
        # has no rows, and an empty baseline is nothing to compare.
        ranged = cut_by_range("ranged.json", "step*", rows=[])
        out = diff("--range", "step*", ranged, same)
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertEqual(out.stderr, f"gpuprof: error: {ranged}: the report has no rows: nothing "
                         "to compare (a run without records, or a --range that matched nothing?)\n")
        out = diff("--group-by", "stream", baseline, same)
        self.assertEqual(out.returncode, 2)
        self.assertIn("its rows are grouped by name, this diff by stream", out.stderr)
        # Either spelling of a group-by names the same key.
        grouped = made_with("grouped.json", "--limit", "0", "--group-by", "launch_config")
        self.assertEqual(json.loads(read(grouped))["group_by"], "launch-config")
        out = diff("--group-by", "launch_config", grouped, same)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def test_formats_parse_and_github_annotations(self):
        slow = self.workload("slow", env={"GPROF_FAKE_KERNEL_NS_OVERRIDE": "matmul=40000"})
        md_path = os.path.join(self.tmp, "summary.md")
        junit_path = os.path.join(self.tmp, "junit.xml")
        json_path = os.path.join(self.tmp, "diff.json")
        out = diff("--github", "--output-md", md_path, "--output-junit", junit_path,
                   "--output-json", json_path, self.base, slow)
        self.assertEqual(out.returncode, 1, out.stderr)
        annotations = [l for l in out.stdout.splitlines() if l.startswith("::error ")]
        self.assertEqual(len(annotations), 2)
        self.assertIn(f"::error title=gprof regression::kernel {MATMUL}: matched.self_cuda:+10%25: "
                      "100.000us -> 200.000us (+100.000us, +100.0%25)", annotations)

        report = json.loads(read(json_path))
        self.assertEqual((report["schema"], report["version"]), ("gprof.diff", 1))
        self.assertEqual(report["verdict"], "regression")
        self.assertEqual(report["failed_rules"], 2)
        self.assertEqual(report["base"]["runs"], [{"files": [self.base]}])
        failed_rows = {f["row"]["name"] for f in report["failures"] if f["row"]}
        self.assertEqual(failed_rows, {MATMUL})
        matmul = next(r for r in report["rows"] if r["name"] == MATMUL)
        self.assertEqual(matmul["status"], "regression")
        self.assertEqual(matmul["metrics"]["self_cuda"]["base"]["median"], 100000.0)
        self.assertEqual(matmul["metrics"]["self_cuda"]["new"]["median"], 200000.0)
        self.assertEqual(matmul["metrics"]["count"]["change"], 0.0)
        self.assertEqual(json.loads(diff("--format", "json", self.base, slow).stdout)["rows"],
                         report["rows"])

        suites = ET.parse(junit_path).getroot()
        suite = suites.find("testsuite")
        self.assertEqual(suite.get("name"), "gprof diff")
        cases = suite.findall("testcase")
        self.assertEqual([c.get("name") for c in cases],
                         ["total.self_cuda:+5%", "repeated.total.self_cpu:+10%", "matched.self_cuda:+10%",
                          "matched.range.cuda_total:+10%", "matched.gpu.count:+0%"])
        failed = {c.get("name"): c.find("failure") for c in cases}
        self.assertIn(f"kernel {MATMUL}: matched.self_cuda:+10%",
                      failed["matched.self_cuda:+10%"].text)
        self.assertIsNone(failed["matched.gpu.count:+0%"])
        self.assertEqual(suite.get("failures"), "2")
        junit = diff("--format", "junit", self.base, slow).stdout
        self.assertEqual(ET.fromstring(junit).find("testsuite").get("tests"), "5")
        # One output that cannot be written is exit 2, and the others keep the comparison.
        kept = os.path.join(self.tmp, "kept.md")
        out = diff("--output-md", kept, "--output-json", os.path.join(self.tmp, "no", "x.json"),
                   self.base, slow)
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertTrue(read(kept).startswith("### ❌ gprof diff: REGRESSION"), read(kept))
        self.assertEqual(out.stderr.count("cannot write"), 1, out.stderr)
        # Annotations on stdout would break a JSON or XML document there.
        for fmt in ("json", "junit"):
            out = diff("--format", fmt, "--github", self.base, slow)
            self.assertEqual((out.returncode, out.stdout), (2, ""))
            self.assertIn(f"write it with --output-{fmt} FILE", out.stderr)

        md = read(md_path)
        self.assertTrue(md.startswith("### ❌ gprof diff: REGRESSION: 2 of 5 rules failed: 2 failures on 1 row and 1 total\n"), md)
        self.assertIn(f"| kernel `matmul(float*, float const*, int)` | matched.self\\_cuda:+10% | "
                      "100.000us | 200.000us | +100.0% |", md)
        self.assertIn("noise test: none", md)
        self.assertEqual(diff("--format", "md", self.base, slow).stdout, md)


class Improvement(E2ETestCase):
    """Issue 34: a run that does the same work faster, with kernels renamed, added and removed
    on the way, passes the default gate; the other way round it fails; the strict set still
    fails on the rows that appeared or vanished; no output says "+inf%"."""

    # analyze_launch_bound: 200 tiny_op kernels of 100 us (BAD) or 5 fused_ops of 1 ms
    # (--efficient, GOOD) inside the same ProfilerStep#N and elementwise_ops ranges.
    ENV = {"GPROF_FAKE_KERNEL_NS_OVERRIDE": "tiny_op=100000,fused_ops=1000000"}

    def record(self, name, *args):
        outdir = os.path.join(self.tmp, name)
        os.makedirs(outdir)
        run = run_program([program("analyze_launch_bound"), *args], outdir, env=self.ENV)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(run.files), 1, run.files)
        return run.files[0]

    def all_formats(self, *args):
        """Text, Markdown, JSON and JUnit of one diff, with --github; asserts one exit status."""
        outs, statuses = [], set()
        for fmt in ("text", "md", "json", "junit"):
            done = diff("--format", fmt, *(["--github"] if fmt in ("text", "md") else []), *args)
            statuses.add(done.returncode)
            outs.append(done.stdout)
        self.assertEqual(len(statuses), 1, statuses)
        return statuses.pop(), outs

    def test_a_faster_run_with_renamed_kernels_passes_the_default_gate(self):
        bad, good = self.record("bad"), self.record("good", "--efficient")
        status, (text, md, doc, junit) = self.all_formats(bad, good)
        self.assertEqual(status, 0, text)
        self.assertIn("OK: no rule failed (5 rules)", text)
        self.assertTrue(md.startswith("### ✅ gprof diff: OK"), md)
        self.assertIn("New rows, only in NEW", text)
        self.assertIn("kernel fused_ops(float*, int, int): 5 calls", text)
        self.assertIn("Vanished rows, only in BASE", text)
        self.assertIn("kernel tiny_op(float*, int): 200 calls", text)
        # The new kernel's % column says "new", the vanished one's "gone".
        self.assertRegex(text, r"fused_ops\(float\*, int, int\) +kernel +new .* new ")
        self.assertRegex(text, r"tiny_op\(float\*, int\) +kernel +vanished .* gone ")
        self.assertEqual(json.loads(doc)["verdict"], "ok")
        for out in (text, md, doc, junit):
            self.assertNotIn("inf%", out)

        # GOOD -> BAD is slower: the GPU total and the ranges on both sides fail.
        status, (text, md, doc, _) = self.all_formats(good, bad)
        self.assertEqual(status, 1, text)
        failures = failure_lines(text)
        self.assertTrue(any(f.startswith("Self CUDA time total: total.self_cuda:+5%: 5.000ms -> "
                                         "20.000ms") for f in failures), failures)
        self.assertTrue(any(f.startswith("range elementwise_ops: matched.self_cuda:+10%")
                            for f in failures), failures)
        self.assertTrue(any(f.startswith("range ProfilerStep#0: matched.range.cuda_total:+10%")
                            for f in failures), failures)
        # The kernel that appeared is listed, not failed: the totals carry its cost.
        self.assertFalse(any("tiny_op" in f for f in failures), failures)
        for out in (text, md, doc):
            self.assertNotIn("inf%", out)

        # The strict set fails the improvement on the rows that appeared and vanished, and
        # gives a new row's amount rather than an infinite percentage.
        status, (text, md, doc, junit) = self.all_formats("--rules", "strict", bad, good)
        self.assertEqual(status, 1, text)
        failures = failure_lines(text)
        self.assertIn("kernel tiny_op(float*, int): gpu.vanished: 200 calls in BASE, not in NEW",
                      failures)
        self.assertIn("kernel fused_ops(float*, int, int): gpu.new: not in BASE, 5 calls in NEW",
                      failures)
        self.assertIn("kernel fused_ops(float*, int, int): self_cuda:+10%: 0.000us -> 5.000ms "
                      "(new: 5.000ms)", failures)
        self.assertIn("(the strict gate)", text)
        self.assertIn("| `fused_ops(float*, int, int)` | self\\_cuda:+10% | 0.000us | 5.000ms | "
                      "new |", md.replace("kernel `", "`"))
        self.assertEqual(json.loads(doc)["rule_set"], "strict")
        for out in (text, md, doc, junit):
            self.assertNotIn("inf%", out)

        # A set is chosen by name or given rule by rule, not both.
        out = diff("--rules", "strict", "--fail-on", "gpu.new", bad, good)
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn("--rules and --fail-on", out.stderr)
        out = diff("--rules", "lenient", bad, good)
        self.assertEqual(out.returncode, 2, out.stderr)


class CiJob(E2ETestCase):
    """docs/diff.md's GitHub Actions job: the baseline is a JSON report kept in the repository;
    each change is recorded with `gpuprof record` and diffed against it."""

    def record(self, output, env=None):
        e = {k: v for k, v in os.environ.items()
             if not k.startswith("GPROF_") or k.startswith("GPROF_FAKE_")}
        e.pop("LD_PRELOAD", None)
        e["LD_LIBRARY_PATH"] = FAKE_LIBRARY_PATH
        e["GPROF_LIB"] = LIBGPROF
        e.update(env or {})
        done = subprocess.run([GPUPROF, "record", "-o", output, "--", program("diff_workload")],
                              env=e, capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(os.path.exists(output), done.stderr)
        return output

    def test_baseline_json_record_diff_markdown_exit_status(self):
        # Once, when the baseline is (re)made, and committed.
        first = self.record(os.path.join(self.tmp, "baseline-run.gprof"))
        baseline = os.path.join(self.tmp, "baseline.json")
        with open(baseline, "w") as f:
            f.write(gpuprof("report", "--format", "json", "--limit", "0", first).stdout)

        # Each CI run: an unchanged program passes...
        same = self.record(os.path.join(self.tmp, "ok.gprof"))
        summary = os.path.join(self.tmp, "ok.md")
        out = diff(baseline, same, "--output-md", summary, "--github")
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertTrue(read(summary).startswith("### ✅ gprof diff: OK"))
        self.assertNotIn("::error", out.stdout)

        # ...and one whose matmul got twice as slow fails with a readable summary.
        slow = self.record(os.path.join(self.tmp, "new.gprof"),
                           env={"GPROF_FAKE_KERNEL_NS_OVERRIDE": "matmul=40000"})
        summary = os.path.join(self.tmp, "summary.md")
        junit = os.path.join(self.tmp, "junit.xml")
        out = diff(baseline, slow, "--format", "md", "--output-md", summary,
                   "--output-junit", junit)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        md = read(summary)
        self.assertTrue(md.startswith("### ❌ gprof diff: REGRESSION: 2 of 5 rules failed: 2 failures on 1 row and 1 total"), md)
        self.assertIn("#### Failures", md)
        self.assertIn("| kernel `matmul(float*, float const*, int)` | matched.self\\_cuda:+10% |", md)
        self.assertIn(f"**Base:** {baseline} (JSON report)".replace("_", "\\_"), md)
        self.assertEqual(ET.parse(junit).getroot().find("testsuite").get("failures"), "2")


REAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "real", "h100-2026-11-27")


class ImprovementOnRealRecordings(unittest.TestCase):
    """The analyze programs recorded on an H100 (real/README.md): each done well passes the
    default gate against its mistake; the mistakes that cost GPU time (many tiny kernels, many
    small copies) fail it the other way round. The others cost CPU time (pageable copies,
    synchronize calls, a slow data loader), which the default gate judges only over several runs
    a side (docs/diff.md)."""

    def side(self, name, variant):
        [path] = [os.path.join(REAL, f) for f in os.listdir(REAL)
                  if f.startswith(f"analyze_{name}-{variant}-")]
        return path

    def diff(self, *args):
        return subprocess.run([GPUPROF, "diff", *args], capture_output=True, text=True, timeout=120)

    def test_each_fix_passes_and_gpu_regressions_fail(self):
        for name in ("launch_bound", "small_memcpy", "pageable_memcpy", "excessive_sync",
                     "dtoh_sync", "gpu_idle"):
            with self.subTest(program=name):
                better = self.diff(self.side(name, "bad"), self.side(name, "efficient"))
                self.assertEqual(better.returncode, 0, better.stdout[-3000:])
                self.assertNotIn("inf%", better.stdout)
        for name in ("launch_bound", "small_memcpy"):
            with self.subTest(program=name):
                worse = self.diff(self.side(name, "efficient"), self.side(name, "bad"))
                self.assertEqual(worse.returncode, 1, worse.stdout[-3000:])
                self.assertIn("REGRESSION", worse.stdout)


if __name__ == "__main__":
    unittest.main()
