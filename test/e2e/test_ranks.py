"""Findings across the ranks of one run (issue 32 item 5, docs/analyze.md): gpuprof-gen makes
runs of 4 ranks, one file each, with one rank waiting for its data in every step (--slow-rank)
and each step's all-reduce either after the optimizer with nothing beside it or beside the step's
compute (--comm). `gpuprof analyze` must name the straggler and where its time went, and the
communication that ran with no compute beside it; `gpuprof diff` must list them as new; the
stream and the in-memory timelines must print the same bytes."""

import json
import os
import subprocess
import unittest

from gprof_e2e import GPUPROF, E2ETestCase

GEN = os.environ.get("GPUPROF_GEN", "")
SLOW_MS = 3.0
# One training thread, short steps: 300 steps per rank in 100K records.
RUN = ["--ranks", "4", "--records", "400K", "--threads", "1", "--ops-per-step", "50"]


def analyze(paths, *args, stream=True):
    env = dict(os.environ)
    env.pop("GPROF_STREAM", None)
    if not stream:
        env["GPROF_STREAM"] = "0"
    return subprocess.run([GPUPROF, "analyze", "--quiet", *args, *paths], capture_output=True,
                          text=True, env=env, timeout=300)


def metric(finding, key):
    if key not in finding["evidence"]:
        raise AssertionError(f"no metric {key} in {finding['rule']}")
    return finding["evidence"][key]["value"]


@unittest.skipUnless(GEN, "GPUPROF_GEN not set")
class RanksOfOneRun(E2ETestCase):
    def generate(self, name, *more):
        folder = os.path.join(self.tmp, name)
        os.makedirs(folder)
        out = subprocess.run([GEN, *RUN, *more, "-o", os.path.join(folder, "rank%r.gprof")],
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr)
        return folder, sorted(f["path"] for f in json.loads(out.stdout)["files"])

    def findings(self, paths, *args):
        """The findings by rule; the stream checked against the in-memory timelines."""
        for options in (["--format", "json", "--min-share", "0", *args], list(args)):
            streamed = analyze(paths, *options)
            in_memory = analyze(paths, *options, stream=False)
            self.assertEqual(streamed.returncode, 0, streamed.stderr)
            self.assertNotIn("read in memory", streamed.stderr)
            self.assertEqual(streamed.stdout, in_memory.stdout, options)
            if options and options[0] == "--format":
                doc = json.loads(streamed.stdout)
        return {f["rule"]: f for f in doc["findings"]}

    def test_the_slow_rank_is_named_with_where_its_time_went(self):
        _, paths = self.generate("slow", "--slow-rank", "2", "--slow-by", str(SLOW_MS))
        found = self.findings(paths)
        self.assertIn("straggler", found, list(found))
        s = found["straggler"]
        self.assertEqual([p["name"] for p in s["where"]["files"]], ["rank 2"])
        self.assertEqual(metric(s, "ranks"), 4)
        self.assertEqual(metric(s, "slow_ranks"), 1)
        # Its steps take SLOW_MS longer without the wait the others have in their all-reduce.
        self.assertAlmostEqual(metric(s, "excess") / 1e6, SLOW_MS, delta=0.1 * SLOW_MS)
        self.assertAlmostEqual(metric(s, "data_wait") / 1e6, SLOW_MS, delta=0.05 * SLOW_MS)
        self.assertEqual(metric(s, "others_data_wait"), 0)
        # The others wait in the all-reduce: SLOW_MS more exposed communication than rank 2.
        self.assertAlmostEqual((metric(s, "others_exposed_comm") - metric(s, "exposed_comm")) / 1e6,
                               SLOW_MS, delta=0.1 * SLOW_MS)
        self.assertIn("data loading", s["summary"])
        self.assertIn("DataLoader", s["suggestion"])
        # Every rank's all-reduce runs after the optimizer with nothing beside it.
        e = found["exposed-comm"]
        self.assertEqual(metric(e, "exposed_share"), 1.0)
        self.assertEqual(len(e["where"]["files"]), 3)  # the top three: the ranks that wait
        self.assertNotIn("rank 2", [p["name"] for p in e["where"]["files"]])
        self.assertIn("ncclDevKernel_AllReduce", e["where"]["activities"][0]["name"])
        self.assertEqual(e["where"]["ranges"][0]["name"], "nccl:all_reduce")

    def test_the_slow_rank_with_overlapped_communication(self):
        _, paths = self.generate("slow-overlapped", "--comm", "overlapped", "--slow-rank", "1",
                                 "--slow-by", str(SLOW_MS))
        s = self.findings(paths)["straggler"]
        self.assertEqual([p["name"] for p in s["where"]["files"]], ["rank 1"])
        self.assertAlmostEqual(metric(s, "data_wait") / 1e6, SLOW_MS, delta=0.05 * SLOW_MS)

    def test_a_balanced_overlapped_run_has_neither(self):
        _, paths = self.generate("balanced", "--comm", "overlapped")
        found = self.findings(paths)
        self.assertNotIn("straggler", found)
        # Beside the step's compute almost all of the time: far below the 5% that fires.
        low = self.findings(paths, "--rules", "exposed-comm", "--threshold",
                            "exposed-comm.min_share=0")
        self.assertLess(metric(low["exposed-comm"], "exposed_share"), 0.1)
        self.assertLess(metric(low["exposed-comm"], "window_share"), 0.01)

    def test_a_serialized_all_reduce_is_exposed_and_no_rank_is_slow(self):
        _, paths = self.generate("serialized")
        found = self.findings(paths)
        self.assertNotIn("straggler", found)
        e = found["exposed-comm"]
        self.assertEqual(metric(e, "exposed_share"), 1.0)
        # ~420 us of all-reduce per step, all of it exposed.
        self.assertAlmostEqual(metric(e, "per_step") / 1e3, 420, delta=60)

    def test_diff_lists_the_straggler_as_new(self):
        before, _ = self.generate("before", "--comm", "overlapped")
        after, _ = self.generate("after", "--comm", "overlapped", "--slow-rank", "3")
        doc = json.loads(subprocess.run([GPUPROF, "diff", "--format", "json", before, after],
                                        capture_output=True, text=True, timeout=300).stdout)
        new = {f["rule"] for f in doc["new_findings"]}
        self.assertIn("straggler", new)
        text = subprocess.run([GPUPROF, "diff", before, after], capture_output=True, text=True,
                              timeout=300).stdout
        self.assertIn("] straggler: ", text)
        back = json.loads(subprocess.run([GPUPROF, "diff", "--format", "json", after, before],
                                         capture_output=True, text=True, timeout=300).stdout)
        self.assertNotIn("straggler", {f["rule"] for f in back["new_findings"]})

    def test_one_file_has_no_straggler(self):
        _, paths = self.generate("one", "--slow-rank", "0")
        self.assertNotIn("straggler", self.findings(paths[:1]))


if __name__ == "__main__":
    unittest.main()
