"""The Python nvtx package (nvtx_annotate.py) under the shim: annotate as a
decorator and as a context manager, in the default domain and in a named one,
nested, plus a mark and a start/end range, each recorded once per call and
named as gpuprof report names NVTX ranges (a domain's ranges "domain:name")."""

import json
import os
import subprocess
import tempfile
import unittest

import clients

GPUPROF = os.environ.get("GPUPROF", "")
CALLS = 3  # nvtx_annotate.CALLS


def gpuprof(*args):
    completed = subprocess.run([GPUPROF, *args], capture_output=True, text=True, timeout=120)
    if completed.returncode != 0:
        raise AssertionError(f"gpuprof {' '.join(args)} failed:\n{completed.stderr}")
    return completed.stdout


class NvtxPackage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="gprof-nvtx-")
        _, cls.files = clients.run_python(["nvtx_annotate.py"], cls._tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_report_rows(self):
        self.assertEqual(len(self.files), 1)
        report = json.loads(gpuprof("report", "--format", "json", "--limit", "0", *self.files))
        rows = {r["name"]: r for r in report["rows"]}
        self.assertEqual({name: r["count"] for name, r in rows.items()},
                         {"outer": CALLS, "decorated": CALLS, "clients:inner": CALLS,
                          "named_after_function": CALLS, "clients:start-end": 1})
        # Nested: outer holds decorated, which holds the other domain's inner range.
        self.assertGreaterEqual(rows["outer"]["cpu_total_ns"], rows["decorated"]["cpu_total_ns"])
        self.assertLess(rows["outer"]["self_cpu_ns"], rows["outer"]["cpu_total_ns"])
        self.assertEqual(report["files"][0]["ranges"]["marks"], 1)
        self.assertEqual(report["files"][0]["ranges"]["start_end"], 1)
        self.assertEqual(report["files"][0]["ranges"]["unbalanced_pops"], 0)

    def test_every_range_and_mark_in_the_dump(self):
        records = [json.loads(line) for line in
                   gpuprof("dump", "--records", "ranges", *self.files).splitlines()]
        kinds = {}
        for r in records:
            kinds.setdefault((r["name"], r["kind"]), 0)
            kinds[(r["name"], r["kind"])] += 1
        self.assertEqual(kinds, {("outer", "push_pop"): CALLS, ("decorated", "push_pop"): CALLS,
                                 ("clients:inner", "push_pop"): CALLS,
                                 ("named_after_function", "push_pop"): CALLS,
                                 ("clients:a mark", "mark"): 1,
                                 ("clients:start-end", "start_end"): 1})


if __name__ == "__main__":
    clients.main()
