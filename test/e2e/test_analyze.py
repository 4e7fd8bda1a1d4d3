"""`gpuprof analyze` (tools/findings, docs/analyze.md) on the analyze_* test programs: each makes
one mistake inside a named NVTX range, and with --efficient does the same work the efficient way.
Each rule must fire on its program and name the range; no rule may fire on an efficient version;
--fail-on exits 1, 0 or 2; `gpuprof record` prints the findings, `gpuprof diff` the new ones.

Kernel durations on the fake are chosen so that the efficient versions queue milliseconds of GPU
work ahead of the CPU: a busy machine that pauses the program for a moment then leaves no gap
long enough to count (gpu-idle counts gaps of 1 ms and more)."""

import json
import lzma
import os
import subprocess
import unittest

from gprof_e2e import E2ETestCase, FAKE_LIBRARY_PATH, GPUPROF, LIBGPROF, gpuprof, program, run_program

# program, the rule its mistake breaks, the range it happens in, the fake's kernel durations.
CASES = [
    ("analyze_pageable_memcpy", "pageable-memcpy", "data_loader",
     {"GPROF_FAKE_KERNEL_NS": "500000"}),
    ("analyze_small_memcpy", "small-memcpy", "upload_params",
     {"GPROF_FAKE_KERNEL_NS": "2000000"}),
    ("analyze_excessive_sync", "excessive-sync", "layer_sync",
     {"GPROF_FAKE_KERNEL_NS": "500000"}),
    ("analyze_launch_bound", "launch-bound", "elementwise_ops",
     {"GPROF_FAKE_KERNEL_NS_OVERRIDE": "tiny_op=2000,fused_ops=5000000"}),
    ("analyze_gpu_idle", "gpu-idle", "data_loader",
     {"GPROF_FAKE_KERNEL_NS": "500000"}),
    ("analyze_dtoh_sync", "memcpy-dtoh-sync", "read_loss",
     {"GPROF_FAKE_KERNEL_NS": "300000"}),
]


class AnalyzeCase(E2ETestCase):
    def record_program(self, name, env, efficient=False, attempt=0):
        """Runs a program under the shim into its own folder; returns the folder."""
        out = os.path.join(self.tmp, name + ("-efficient" if efficient else "") +
                           (f"-{attempt}" if attempt else ""))
        os.makedirs(out, exist_ok=True)
        args = [program(name)] + (["--efficient"] if efficient else [])
        run = run_program(args, out, env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(run.files), 1, run.stderr)
        return out

    def analyze_json(self, *args):
        completed = gpuprof("analyze", "--format", "json", *args)
        doc = json.loads(completed.stdout)
        self.assertEqual(doc["schema"], "gprof.analyze")
        self.assertEqual(doc["version"], 1)
        return doc


class EachRuleOnItsProgram(AnalyzeCase):
    def test_rule_fires_in_the_range_and_not_on_the_efficient_version(self):
        for name, rule, range_name, env in CASES:
            with self.subTest(program=name):
                # A host descheduled for long stretches dilutes the mistake's share of the
                # window: a CI run beside other jobs once found no pageable-memcpy at all.
                # The mistake is there in every run; such a stall does not repeat three times.
                for attempt in range(3):
                    doc = self.analyze_json(self.record_program(name, env, attempt=attempt))
                    fired = {f["rule"]: f for f in doc["findings"]}
                    if rule in fired:
                        break
                self.assertIn(rule, fired, json.dumps(doc["findings"], indent=1))
                finding = fired[rule]
                self.assertEqual(finding["where"]["ranges"][0]["name"], range_name, finding)
                self.assertGreater(finding["where"]["ranges"][0]["share"], 0.5, finding)
                self.assertEqual(finding["where"]["steps"]["pattern"], "ProfilerStep*")
                self.assertTrue(finding["suggestion"])
                self.assertTrue(finding["evidence"])
                # The fake GPU runs a kernel when it is launched, so a host descheduled
                # for milliseconds leaves it idle that long: in these 15 ms runs, a CI
                # machine's 4.6 ms stall once made gpu-idle fire at 32% of the window on
                # an efficient run. A mistake fires every time; a stall does not repeat
                # three times.
                for attempt in range(3):
                    efficient = self.analyze_json(
                        self.record_program(name, env, efficient=True, attempt=attempt))
                    if not efficient["findings"]:
                        break
                self.assertEqual(efficient["findings"], [],
                                 f"{name} --efficient: {json.dumps(efficient['findings'], indent=1)}")
                self.assertEqual([r["fired"] for r in efficient["rules"]], [False] * len(efficient["rules"]))


REAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "real", "h100-2026-11-27")


class OnRealRecordings(AnalyzeCase):
    """The same programs recorded on an H100 (real/README.md). There the first cudaMalloc ran
    cuInit for ~120 ms against a few ms of work, and the window began at it: every rule but
    gpu-idle found its mistake at 0.1-0.8% of the window, and excessive-sync counted the blocking
    copies' time as its own."""

    def real_path(self, name, variant):
        [path] = [os.path.join(REAL, f) for f in os.listdir(REAL)
                  if f.startswith(f"{name}-{variant}-")]
        return path

    def real(self, name, variant, *args):
        return self.analyze_json(*args, self.real_path(name, variant))

    def test_a_kernels_first_run_is_warm_up_not_idle_time(self):
        # The copy programs' first kernel launch loaded its module while the GPU idled 15-17 ms
        # in step 1: gpu-idle had called it 93-95% of the window. Warm-up now, not counted; the
        # gpu-idle program's stalls (its data loader, each ending with a copy) still are.
        for name in ("analyze_pageable_memcpy", "analyze_small_memcpy"):
            doc = self.real(name, "bad", "--min-share", "0")
            self.assertNotIn("gpu-idle", [f["rule"] for f in doc["findings"] + doc["hidden"]])
            counted = self.real(name, "bad", "--threshold", "gpu-idle.warmup_gap=0")
            [idle] = [f for f in counted["findings"] if f["rule"] == "gpu-idle"]
            self.assertGreater(idle["evidence"]["longest_gap"]["value"], 15e6, name)
        doc = self.real("analyze_gpu_idle", "bad")
        [idle] = [f for f in doc["findings"] if f["rule"] == "gpu-idle"]
        self.assertNotIn("warmup_gaps", idle["evidence"])

    def test_each_rule_fires_on_its_program_at_the_default_settings(self):
        for name, rule, range_name, _ in CASES:
            with self.subTest(program=name):
                doc = self.real(name, "bad")
                fired = {f["rule"]: f for f in doc["findings"]}
                self.assertIn(rule, fired, json.dumps(doc, indent=1)[:3000])
                self.assertEqual(fired[rule]["where"]["ranges"][0]["name"], range_name)
                # The window starts at the first call that may issue GPU work, not at cuInit.
                self.assertLess(doc["window_ns"], 40_000_000)
                efficient = self.real(name, "efficient")
                self.assertNotIn(rule, [f["rule"] for f in efficient["findings"]])
                self.assertNotIn(rule, [f["rule"] for f in efficient["hidden"]])

    def test_blocking_copies_are_the_copy_rules_evidence(self):
        # excessive-sync counts synchronize calls only (issue 34 item 4).
        for name in ("analyze_pageable_memcpy", "analyze_small_memcpy", "analyze_dtoh_sync"):
            doc = self.real(name, "bad")
            sync = [f for f in doc["findings"] + doc["hidden"] if f["rule"] == "excessive-sync"]
            self.assertEqual(sync, [], name)
        doc = self.real("analyze_excessive_sync", "bad")
        [sync] = [f for f in doc["findings"] if f["rule"] == "excessive-sync"]
        calls = {k for k in sync["evidence"] if k.startswith("calls.")}
        self.assertEqual(calls, {"calls.cudaStreamSynchronize"}, sync["evidence"])


REAL_H200 = os.path.join(os.path.dirname(REAL), "h200-2026-11-27")


class StartUpOnRealRecordings(AnalyzeCase):
    """Without steps, a device's start-up is left out of gpu-idle's window, and every other rule
    leaves it out too (its calls and their work, and its time from the window their shares are
    of): up to the end of the last gap that began before the device had run 1% of its kernels
    (gpu_gaps.h, StartupFinder).
    torch's train_step.py on an H200 (real/README.md) uploaded 32 MB of weights and data, then
    the GPU idled 5.4 s (imports, cuBLAS, module loading) before the first kernel; the loop's 25
    steps took 0.18 s. gpu-idle had reported 5.73 s idle, 99.2% of the window."""

    def unpacked(self, name):
        path = os.path.join(self.tmp, name)
        with lzma.open(os.path.join(REAL_H200, name + ".xz")) as src, open(path, "wb") as dst:
            dst.write(src.read())
        return path

    def gpu_idle(self, *args):
        doc = self.analyze_json(*args)
        [idle] = [f for f in doc["findings"] + doc["hidden"] if f["rule"] == "gpu-idle"]
        return {k: v["value"] for k, v in idle["evidence"].items()}, idle

    def test_torch_start_up_is_left_out(self):
        path = self.unpacked("torch-681.gprof")
        # Its loop's gaps are warm-up (test_torch_warm_up_is_left_out): counted here, to see
        # the start-up apart.
        counted = ("--threshold", "gpu-idle.warmup_gap=0")
        evidence, idle = self.gpu_idle(*counted, path)
        self.assertGreater(evidence["setup"], 5.5e9, evidence)  # the 5.4 s gap and the one after
        self.assertGreater(evidence["setup_idle"], 5.5e9, evidence)
        self.assertLess(evidence["window"], 0.2e9, evidence)  # the loop: 177 ms
        self.assertLess(evidence["idle_time"], evidence["window"])
        self.assertLess(evidence["longest_gap"], 30e6, idle["gaps"])  # the loop's own, 26 ms
        self.assertEqual(idle["evidence"]["setup"]["label"], "start-up (setup, not counted)")
        # The stream and the in-memory path agree (GPROF_STREAM=0 is the oracle).
        env = dict(os.environ, GPROF_STREAM="0")
        memory = subprocess.run([GPUPROF, "analyze", "--format", "json", path], env=env,
                                capture_output=True, text=True, check=True)
        self.assertEqual(memory.stdout, gpuprof("analyze", "--format", "json", path).stdout)
        # Every rule leaves the start-up out and measures against the window less it: the
        # loop's launch-bound (29 ms of idle GPU between 398 launches) was 0.5% of the 5.8 s
        # window, under the 1% shown; the 4 launches of the start-up are not among them.
        doc = self.analyze_json(path)
        self.assertGreater(doc["setup_ns"], 5.5e9)
        self.assertLess(doc["window_ns"], 0.2e9)
        self.assertEqual(doc["files"][0]["setup_ns"], doc["setup_ns"])
        [bound] = [f for f in doc["findings"] if f["rule"] == "launch-bound"]
        self.assertGreater(bound["impact_share"], 0.1)
        self.assertEqual(bound["evidence"]["launches"]["value"], 398)
        text = gpuprof("analyze", path).stdout
        self.assertRegex(text.splitlines()[0], r"window 177\.\d+ms \(after 5\.60\ds of setup\)")
        # startup_share=0 counts it as before.
        evidence, _ = self.gpu_idle(*counted, path, "--threshold", "gpu-idle.startup_share=0")
        self.assertNotIn("setup", evidence)
        self.assertGreater(evidence["idle_time"], 5.7e9)
        self.assertGreater(evidence["idle_share"], 0.99)
        doc = self.analyze_json(path, "--threshold", "gpu-idle.startup_share=0")
        self.assertEqual(doc["setup_ns"], 0)
        self.assertGreater(doc["window_ns"], 5.7e9)

    def test_torch_warm_up_is_left_out(self):
        # After the start-up, every gap of 1 ms or more of the loop ended where a kernel first
        # ran (module loading, first calls): 136 ms in 9 gaps, all in its first iteration. Not
        # counted, gpu-idle finds nothing; the loop's launch-bound comes first.
        path = self.unpacked("torch-681.gprof")
        doc = self.analyze_json("--min-share", "0", path)
        self.assertNotIn("gpu-idle", [f["rule"] for f in doc["findings"] + doc["hidden"]])
        self.assertEqual(doc["findings"][0]["rule"], "launch-bound")
        evidence, _ = self.gpu_idle("--threshold", "gpu-idle.warmup_gap=0", path)
        self.assertEqual(evidence["gaps"], 9)
        self.assertGreater(evidence["idle_time"], 130e6)
        env = dict(os.environ, GPROF_STREAM="0")
        memory = subprocess.run([GPUPROF, "analyze", "--format", "json", "--min-share", "0", path],
                                env=env, capture_output=True, text=True, check=True)
        self.assertEqual(memory.stdout,
                         gpuprof("analyze", "--format", "json", "--min-share", "0", path).stdout)

    def test_a_first_launch_that_loads_modules_is_start_up(self):
        # vector_add: three copies, then 100 ms in the first cudaLaunchKernel (lazy loading).
        evidence, _ = self.gpu_idle("--min-share", "0", self.unpacked("vector_add_shared-602.gprof"))
        self.assertGreater(evidence["setup_idle"], 99e6, evidence)
        self.assertLess(evidence["window"], 5e6, evidence)


class FailOn(AnalyzeCase):
    def test_exit_status(self):
        name, rule, _, env = CASES[4]  # gpu-idle
        bad = self.record_program(name, env)
        good = self.record_program(name, env, efficient=True)
        fired = gpuprof("analyze", "--fail-on", rule, bad, check=False)
        self.assertEqual(fired.returncode, 1, fired.stderr)
        self.assertIn(f"--fail-on: {rule} fired", fired.stderr)
        self.assertIn(f"[high] {rule}", fired.stdout)
        self.assertEqual(gpuprof("analyze", "--fail-on", "all", good, check=False).returncode, 0)
        # A rule that does not fire on the bad program gates nothing.
        self.assertEqual(
            gpuprof("analyze", "--fail-on", "small-memcpy,pageable-memcpy", bad,
                    check=False).returncode, 0)
        for args, message in [
                (["--fail-on", "gpu-idel", bad], "unknown rule 'gpu-idel'"),
                (["--rules", "launch-bound", "--fail-on", "gpu-idle", bad], "not among --rules"),
                (["--threshold", "gpu-idle.min_gap=2", bad], "not a value for gpu-idle.min_gap"),
                (["--range", "no_such_range", bad], "matches no range"),
                ([os.path.join(self.tmp, "missing.gprof")], "missing.gprof"),
                (["--format", "csv", bad], "csv")]:
            with self.subTest(args=args):
                run = gpuprof("analyze", "--fail-on", "all", *args, check=False)
                self.assertEqual(run.returncode, 2, run.stderr)
                self.assertIn(message, run.stderr)

    def test_range_and_step_options(self):
        name, _, _, env = CASES[5]  # memcpy-dtoh-sync
        bad = self.record_program(name, env)
        inside = self.analyze_json("--range", "read_loss", bad)
        self.assertEqual(inside["ranges"], ["read_loss"])
        self.assertIn("memcpy-dtoh-sync", [f["rule"] for f in inside["findings"]])
        outside = self.analyze_json("--range", "forward", bad)
        self.assertNotIn("memcpy-dtoh-sync", [f["rule"] for f in outside["findings"]])
        steps = self.analyze_json("--step", "read_*", bad)
        self.assertEqual(steps["steps"], {"pattern": "read_*", "count": 10})


class RecordAndDiff(AnalyzeCase):
    def test_record_prints_the_top_findings(self):
        name, rule, range_name, env = CASES[3]  # launch-bound
        e = {k: v for k, v in os.environ.items()
             if not k.startswith("GPROF_") or k.startswith("GPROF_FAKE_")}
        e.update(env, LD_LIBRARY_PATH=FAKE_LIBRARY_PATH, GPROF_LIB=LIBGPROF)
        run = subprocess.run([GPUPROF, "record", "-o", "run-%p.gprof", "--", program(name)],
                             env=e, cwd=self.tmp, capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = run.stderr.splitlines()
        self.assertTrue(any(l.startswith("Findings (") for l in lines), run.stderr)
        self.assertTrue(any(l.startswith(f"  [") and f"] {rule}: " in l and f"'{range_name}'" in l
                            for l in lines), run.stderr)
        self.assertIn("Evidence and suggestions: gpuprof analyze ", run.stderr)

    def test_diff_lists_findings_new_in_new(self):
        name, rule, _, env = CASES[4]  # gpu-idle
        good = self.record_program(name, env, efficient=True)
        bad = self.record_program(name, env)
        # --jobs 2 reads the two sides' findings at once (cmd_diff.cc), --jobs 1 one after the
        # other: the same findings, on the same side.
        for jobs in ("1", "2"):
            text = gpuprof("diff", "--jobs", jobs, good, bad, check=False)
            self.assertIn("New findings, only in NEW (gpuprof analyze):", text.stdout)
            self.assertIn(f"] {rule}: ", text.stdout)
            doc = json.loads(gpuprof("diff", "--jobs", jobs, "--format", "json", good, bad,
                                     check=False).stdout)
            self.assertIn(rule, [f["rule"] for f in doc["new_findings"]])
            # The other way round, nothing is new.
            back = json.loads(gpuprof("diff", "--jobs", jobs, "--format", "json", bad, good,
                                      check=False).stdout)
            self.assertEqual(back["new_findings"], [])


if __name__ == "__main__":
    unittest.main()
