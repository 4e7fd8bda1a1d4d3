"""PyTorch on the CPU under the shim (no GPU): a training step (conv, linear,
ReLU, loss, backward, SGD) with emit_nvtx, record_function and
torch.cuda.nvtx ranges, checked against torch.profiler on the same steps in
the same process (torch_train.py), which is the oracle: what torch counts,
gprof counts."""

import json
import os
import subprocess
import tempfile
import unittest

import clients

GPUPROF = os.environ.get("GPUPROF", "")

# Largest difference, in percentage points, between the Self CPU share of an op in gprof's
# report and in torch.profiler's (top 10 ops). The steps of the two alternate in one process,
# but each op still pays a different profiling cost: gprof records an NVTX push and pop per
# op, and torch formats the emit_nvtx message ("aten::mm, seq = 3, op_id = 17, sizes = [...]")
# before the push, while torch.profiler records its own events; a few microseconds per op,
# against top ops of 0.2 to 1 ms each: a point or two. The rest is scheduling: the shares are
# of each op's smallest self time over the 20 steps, since wall-clock self times on a busy
# 2-core machine include preemptions of up to tens of milliseconds that land on any op (with
# 6 steps a share was off by 7 points once in 3 runs at a load of 14; with 20, under 1 point).
SHARE_TOLERANCE = 5.0
# The wheel's test (test/e2e/test_wheel.py) runs this file again with the installed wheel's
# shim and sets this to 0: it checks the packaging, and the shares are timings, which this
# test already holds on the same code. CI of 2026-11-30 failed there once: both tools' conv
# shares 5.3 points apart in opposite directions (torch's forward/backward 26.5/21.4 where
# seven earlier CI runs had 23.8-25.7/23.8-25.4), while this test, in the same run, passed.
# Why that run differed is not known; it was not the other tests' load (e2e/wheel runs alone).
TIMING = os.environ.get("GPROF_TORCH_TIMING", "1") != "0"


def gpuprof(*args):
    completed = subprocess.run([GPUPROF, *args], capture_output=True, text=True, timeout=120)
    if completed.returncode != 0:
        raise AssertionError(f"gpuprof {' '.join(args)} failed ({completed.returncode}):\n"
                             f"{completed.stdout}\n{completed.stderr}")
    return completed.stdout


def report(files, *options):
    return json.loads(gpuprof("report", "--format", "json", "--limit", "0", *options, *files))


class Torch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="gprof-torch-")
        tmp = cls._tmp.name
        cls.process, cls.files = clients.run_python(
            ["torch_train.py", os.path.join(tmp, "oracle.json")], tmp)
        with open(os.path.join(tmp, "oracle.json"), encoding="utf-8") as f:
            cls.oracle = json.load(f)
        cls.report = report(cls.files)
        cls.rows = {r["name"]: r for r in cls.report["rows"]}

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_the_report_streams_and_matches_the_in_memory_one(self):
        """PyTorch's threads (main, autograd) as the shim wrote them: the streaming report
        (tools/analysis/aggregate/ops_stream.h) takes the file and gives the bytes of the
        in-memory one (GPROF_STREAM=0)."""
        for options in ([], ["--group-by", "input-shape"], ["--group-by", "seq"],
                        ["--view", "api"]):
            outputs = []
            for stream in ("1", "0"):
                env = dict(os.environ, GPROF_STREAM=stream)
                done = subprocess.run([GPUPROF, "report", "--limit", "0", *options,
                                       *self.files], capture_output=True, text=True,
                                      timeout=120, env=env)
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertNotIn("read in memory", done.stderr, options)
                outputs.append(done.stdout)
            self.assertEqual(outputs[0], outputs[1], options)

    def test_one_file_and_torch_unchanged(self):
        self.assertEqual(len(self.files), 1, self.process.stderr)
        # torch.profiler, and the training, ran as without the shim.
        self.assertGreater(len(self.oracle["events"]), 40)
        self.assertLess(self.oracle["loss"], 2.4)  # below ln(10): it learned

    def test_every_count_is_torch_profilers(self):
        steps = self.oracle["steps"]
        expected = {e["name"]: e["count"] for e in self.oracle["events"]}
        self.assertGreater(sum(n.startswith("aten::") for n in expected), 30, expected)
        counts = {name: row["count"] for name, row in self.rows.items()}
        # torch.profiler does not see torch.cuda.nvtx ranges (NVTX only): the one extra row.
        self.assertEqual(counts.pop("forward", None), steps)
        self.assertEqual(counts, expected)
        for step in range(steps):
            self.assertEqual(counts[f"step{step}"], 1)
        self.assertEqual(counts["Optimizer.step#SGD.step"], steps)
        self.assertEqual(counts["aten::mkldnn_convolution"], steps)
        self.assertEqual({r["kind"] for r in self.report["rows"]}, {"range"})

    def test_input_shapes_are_torch_profilers(self):
        """--group-by input-shape is key_averages(group_by_input_shape=True)."""
        by_shape = report(self.files, "--group-by", "input-shape")
        counts = {(r["name"], r["group"]): r["count"] for r in by_shape["rows"]
                  if r["name"].startswith("aten::")}
        expected = {(e["name"], e["input_shapes"]): e["count"]
                    for e in self.oracle["events_by_shape"] if e["name"].startswith("aten::")}
        self.assertEqual(counts, expected)
        self.assertIn(("aten::addmm", "[[10], [32, 16384], [16384, 10], [], []]"), counts)

    @unittest.skipUnless(TIMING, "GPROF_TORCH_TIMING=0: timings are checked by clients/torch")
    def test_self_cpu_shares_of_the_top_ops(self):
        steps = self.oracle["steps"]
        gprof_steps = [{r["name"]: r["self_cpu_ns"] / 1000
                        for r in report(self.files, "--range", f"step{i}")["rows"]}
                       for i in range(steps)]
        torch_steps = self.oracle["self_cpu_per_step"]
        self.assertEqual(len(torch_steps), steps)
        ops = [n for n in torch_steps[0] if n.startswith("aten::")]

        def shares(per_step):
            least = {op: min(step.get(op, 0.0) for step in per_step) for op in ops}
            total = sum(least.values())
            return {op: 100 * t / total for op, t in least.items()}

        expected, actual = shares(torch_steps), shares(gprof_steps)
        top = sorted(ops, key=lambda op: -expected[op])[:10]
        self.assertIn("aten::mkldnn_convolution", top)
        self.assertIn("aten::convolution_backward", top)
        table = "\n".join(f"{op:32} torch {expected[op]:6.2f}%  gprof {actual[op]:6.2f}%"
                          for op in top)
        print(f"\nSelf CPU shares of the top ops (smallest per step):\n{table}")
        for op in top:
            self.assertLessEqual(abs(actual[op] - expected[op]), SHARE_TOLERANCE, table)

    def test_backward_ops_link_to_forward_ops_through_seq(self):
        ranges = [json.loads(line) for line in
                  gpuprof("dump", "--records", "ranges", *self.files).splitlines()]
        seqs = {}
        for r in ranges:
            if "seq" in r:
                seqs.setdefault(r["name"], set()).add(r["seq"])
        steps = self.oracle["steps"]
        for backward, forward in (("AddmmBackward0", "aten::addmm"),
                                  ("ConvolutionBackward0", "aten::convolution"),
                                  ("ReluBackward0", "aten::relu")):
            self.assertEqual(len(seqs[backward]), steps, backward)
            self.assertEqual(seqs[backward], seqs[forward], backward)
        # And by --group-by seq: one row per forward op and one per backward op, same number.
        rows = report(self.files, "--group-by", "seq")["rows"]
        addmm = {r["group"] for r in rows if r["name"] == "aten::addmm"}
        self.assertEqual(addmm, {r["group"] for r in rows if r["name"] == "AddmmBackward0"})
        self.assertEqual(len(addmm), steps)


if __name__ == "__main__":
    clients.main()
