"""gpuprof trace on gpuprof-gen's files (issue 13 item 3, issue 15 item 7): the same bytes as
the trace written before the fast writer, on a file that spills to disk and has several ranks,
threads, ranges and graphs; and CUPTI ids that wrap at 2^32, which trace and export unwrap so
that every call still pairs with its own GPU work."""

import gzip
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

from gprof_e2e import GPUPROF, gpuprof

GEN = os.environ.get("GPUPROF_GEN", "")
# sha256 of `gpuprof trace h-rank0.gprof h-rank1.gprof` on the files of GEN_ARGS, as written
# by gpuprof before the trace's JSON writer and sorter were rewritten for speed (commit
# e1dbcc7): 63468 events, more than one sorting run (spill_sorter.h). An intended change of
# the trace's output updates it (say so in the commit). SPILLED: the sort memory
# (GPROF_TRACE_SORT_MEMORY) at which every sorter spills many runs, whatever the default.
GEN_ARGS = ["--records", "60001", "--ranks", "2", "--threads", "5", "--seed", "7",
            "--ops-per-step", "40"]
TRACE_SHA256 = "32def673b2dcc18dfb02ca3043be0951ebe0cd403f84ad7e1d97badb69ccd41d"
SPILLED = "64K"
# Near 2^32, so that the ids wrap early in the file.
FIRST_ID = 2**32 - 2000


def generate(outdir, *more):
    subprocess.run([GEN, *GEN_ARGS, "-o", os.path.join(outdir, "h-rank%r.gprof"), *more],
                   capture_output=True, text=True, check=True, timeout=300)


def events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


class TraceOfGeneratedFiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="gprof-trace-gen-")
        generate(cls.dir)
        cls.wrap_dir = os.path.join(cls.dir, "wrap")
        os.mkdir(cls.wrap_dir)
        generate(cls.wrap_dir, "--first-correlation", str(FIRST_ID))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def trace(self, where, out, *more, env=None):
        # Relative input names: the document lists them (otherData.files).
        done = subprocess.run([GPUPROF, "trace", "--quiet", "h-rank0.gprof", "h-rank1.gprof",
                               "-o", out, *more], cwd=where, capture_output=True, text=True,
                              timeout=300, env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        return os.path.join(where, out)

    def test_same_bytes_as_before(self):
        path = self.trace(self.dir, "t.json")
        with open(path, "rb") as f:
            self.assertEqual(hashlib.sha256(f.read()).hexdigest(), TRACE_SHA256)
        gz = self.trace(self.dir, "t.json.gz")
        with gzip.open(gz, "rb") as f:
            self.assertEqual(hashlib.sha256(f.read()).hexdigest(), TRACE_SHA256)

    def test_same_bytes_when_every_sorter_spills(self):
        # The external sort's merge of many runs from temporary files, in every sorter
        # (events, GPU pairing, counters), gives the bytes of the in-memory sort.
        env = dict(os.environ, GPROF_TRACE_SORT_MEMORY=SPILLED)
        for out in ("s.json", "s.json.gz"):
            path = self.trace(self.dir, out, env=env)
            opener = gzip.open if out.endswith(".gz") else open
            with opener(path, "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(), TRACE_SHA256)

    def test_same_bytes_at_any_jobs(self):
        # Frames decoded, runs spilled and JSON encoded on helper threads: the bytes of one
        # thread, however many (more than the cores too), with few or many sorting runs.
        for env in (None, dict(os.environ, GPROF_TRACE_SORT_MEMORY=SPILLED)):
            for jobs in ("1", "2", "5"):
                path = self.trace(self.dir, f"j{jobs}.json", "--jobs", jobs, env=env)
                with open(path, "rb") as f:
                    self.assertEqual(hashlib.sha256(f.read()).hexdigest(), TRACE_SHA256, jobs)

    def test_sort_memory_that_is_not_a_size_is_a_usage_error(self):
        for bad in ("lots", "0", "12Q", "-5M"):
            done = subprocess.run([GPUPROF, "trace", "--quiet", "h-rank0.gprof", "-o", "bad.json"],
                                  cwd=self.dir, capture_output=True, text=True, timeout=60,
                                  env=dict(os.environ, GPROF_TRACE_SORT_MEMORY=bad))
            self.assertEqual(done.returncode, 2, (bad, done.stderr))
            self.assertIn("GPROF_TRACE_SORT_MEMORY", done.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.dir, "bad.json")))

    def test_wrapped_ids_pair_as_before_the_wrap(self):
        # The same run with ids from FIRST_ID: every event as in the run from 1, each
        # correlation FIRST_ID - 1 higher, and one more past 2^32 (the generator skips id 0,
        # which means none in a file), so every flow joins the same call and GPU slice.
        plain = events(self.trace(self.dir, "plain.json"))
        wrapped = events(self.trace(self.wrap_dir, "wrapped.json"))
        # The unwrapping's sorters too, from temporary files.
        spilled = events(self.trace(self.wrap_dir, "spilled.json",
                                    env=dict(os.environ, GPROF_TRACE_SORT_MEMORY=SPILLED)))
        self.assertEqual(spilled, wrapped)
        self.assertEqual(len(plain), len(wrapped))
        shifted = 0
        for a, b in zip(plain, wrapped):
            if "correlation" in a.get("args", {}):
                expected = a["args"]["correlation"] + FIRST_ID - 1
                self.assertEqual(b["args"]["correlation"], expected + (expected >= 2**32), (a, b))
                shifted += b["args"]["correlation"] >= 2**32
                b = dict(b, args=dict(b["args"], correlation=a["args"]["correlation"]))
            self.assertEqual(a, b)
        self.assertGreater(shifted, 1000)

    def exported_joins(self, where, queries):
        """Exports rank 0 of `where`, checks that every kernel joins one call that started
        before it (graph kernels share their launch's), and gives each query's row (its one
        value when it has one column)."""
        out = os.path.join(where, "export.sqlite")
        gpuprof("export", "--quiet", os.path.join(where, "h-rank0.gprof"), "-o", out)
        db = sqlite3.connect(out)
        try:
            kernels = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
            joined = db.execute(
                "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN "
                "CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = k.correlationId "
                "AND r.start <= k.start").fetchone()[0]
            rows = [db.execute(q).fetchone() for q in queries]
        finally:
            db.close()
        self.assertGreater(kernels, 1000)
        self.assertEqual(joined, kernels)
        return [row[0] if len(row) == 1 else row for row in rows]

    def test_wrapped_ids_join_in_export(self):
        (high,) = self.exported_joins(self.wrap_dir, (
            "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId >= 4294967296",))
        self.assertGreater(high, 1000)

    def test_a_takeover_after_the_wrap_unwraps_in_export(self):
        """The calls' ids wrap in the first step, then another tool takes CUPTI over and the
        file ends in EXTERNAL_CORRELATION with gprof's pushed ids above CUPTI's. Export took
        such a file as one of an older gprof's (calls carrying pushed ids only) and left both
        the calls' CUPTI ids and the mappings' as recorded: 1, 2, ... after 2^32 - 100, where
        trace and report unwrap them (analysis/read/call_pairing.h)."""
        where = os.path.join(self.dir, "takeover")
        os.mkdir(where)
        generate(where, "--first-correlation", str(2**32 - 100), "--takeover", "2:4")
        lowest_call, mapped = self.exported_joins(where, (
            "SELECT min(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME",
            "SELECT min(correlationId), count(*) FROM GPROF_EXTERNAL_CORRELATION"))
        self.assertEqual(lowest_call, 2**32 - 100)
        self.assertGreater(mapped[1], 1000)
        self.assertGreater(mapped[0], 2**32)


if __name__ == "__main__":
    unittest.main()
