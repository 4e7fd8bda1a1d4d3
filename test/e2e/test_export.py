"""gpuprof export on files the shim really wrote: the database holds what
`gpuprof report` counts, names resolve through StringIds, the example queries
of docs/export.md give the report's rows, ranks stay apart, and bad inputs
fail with exit 2 and leave nothing behind (docs/export.md)."""

import json
import os
import re
import resource
import signal
import sqlite3
import subprocess

from gprof_e2e import GPUPROF, SOURCE, E2ETestCase, gpuprof, program, run_program

DOC = os.path.join(SOURCE, "docs", "export.md")


def doc_queries():
    """The queries of docs/export.md by name: each fenced sql block after a
    `<!-- query: NAME -->` line."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    found = dict(re.findall(r"<!-- query: (\w+) -->\n```sql\n(.*?)```", text, re.S))
    assert found, "no queries in docs/export.md"
    return found


class Export(E2ETestCase):
    def record(self, name, *args, env=None, outdir=None):
        outdir = outdir or self.tmp
        e = {"GPROF_OUTPUT": os.path.join(outdir, "run-%p.gprof")}
        e.update(env or {})
        run = run_program([program(name), *args], outdir, env=e)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertTrue(run.files)
        return run.files

    def export(self, *inputs, out="run.sqlite", options=()):
        path = os.path.join(self.tmp, out)
        done = gpuprof("export", *inputs, "-o", path, *options)
        self.assertRegex(done.stderr, r"gpuprof: wrote .* \(\d+ rows from \d+ files? in ")
        db = sqlite3.connect(path)
        self.addCleanup(db.close)
        return db

    @staticmethod
    def report(*inputs):
        return json.loads(gpuprof("report", "--format", "json", "--limit", "0", *inputs).stdout)

    @staticmethod
    def rows(report, *kinds):
        return {r["name"]: r for r in report["rows"] if r["kind"] in kinds}

    def count(self, db, sql, *params):
        return db.execute(sql, params).fetchone()[0]

    def check_against_report(self, files, db):
        report = self.report(*files)
        queries = doc_queries()
        kernels = self.rows(report, "kernel")
        apis = self.rows(report, "api")
        transfers = self.rows(report, "memcpy", "memset")
        # Row counts: every call and every piece of GPU work the report counts.
        self.assertEqual(self.count(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
                         sum(r["count"] for r in apis.values()))
        self.assertEqual(self.count(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"),
                         sum(r["count"] for r in kernels.values()))
        self.assertEqual(self.count(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY") +
                         self.count(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"),
                         sum(r["count"] for r in transfers.values()))
        # Every kernel's three names resolve.
        self.assertEqual(self.count(db, """
            SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k
            LEFT JOIN StringIds AS d ON d.id = k.demangledName
            LEFT JOIN StringIds AS s ON s.id = k.shortName
            LEFT JOIN StringIds AS m ON m.id = k.mangledName
            WHERE d.value IS NULL OR s.value IS NULL OR m.value IS NULL"""), 0)
        # GPU time: kernels, copies and sets add up to the report's Self CUDA total.
        gpu_ns = sum(self.count(db, f"SELECT coalesce(sum(end - start), 0) FROM {t}")
                     for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                               "CUPTI_ACTIVITY_KIND_MEMSET"))
        self.assertEqual(gpu_ns, report["totals"]["self_cuda_ns"])
        # The documented queries give the report's rows.
        got = {n: (c, t) for n, c, t in db.execute(queries["kernel_rows"])}
        self.assertEqual(got, {n: (r["count"], r["cuda_total_ns"]) for n, r in kernels.items()})
        got = {n: (c, t) for n, c, t in db.execute(queries["api_rows"])}
        self.assertEqual(got, {n: (r["count"], r["cpu_total_ns"]) for n, r in apis.items()})
        got = {n: (c, t) for n, c, t in db.execute(queries["transfer_rows"])}
        self.assertEqual(got, {n: (r["count"], r["cuda_total_ns"])
                               for n, r in transfers.items()})
        summary = db.execute(queries["gpu_kern_sum"]).fetchall()
        self.assertEqual({row[8]: (row[2], row[1]) for row in summary},
                         {n: (r["count"], r["cuda_total_ns"]) for n, r in kernels.items()})
        if summary:
            self.assertAlmostEqual(sum(row[0] for row in summary), 100.0, delta=0.5)
        for name, sql in queries.items():  # every documented query runs
            db.execute(sql).fetchall()
        return report

    def test_train_loop(self):
        files = self.record("train_loop", "--steps", "3")
        db = self.export(*files)
        report = self.check_against_report(files, db)
        self.assertEqual(self.count(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 15)
        # nsys's kernel summary: the fake runtime runs every kernel for 20 us.
        for row in db.execute(doc_queries()["gpu_kern_sum"]):
            self.assertEqual((row[3], row[4], row[5], row[6], row[7]),
                             (20000.0, 20000.0, 20000, 20000, 0.0), row)
        # Each launch joins its kernel, within its process.
        launches = db.execute(doc_queries()["launches"]).fetchall()
        self.assertEqual(len(launches), 15)
        self.assertTrue(all(r[3] >= 0 and r[5] == 20000 for r in launches), launches[:3])
        # Process and thread ids decode as in nsys exports.
        pid = report["files"][0]["pid"]
        self.assertEqual(
            {r[0] for r in db.execute("SELECT DISTINCT globalPid / 0x1000000 % 0x1000000 "
                                      "FROM CUPTI_ACTIVITY_KIND_KERNEL")}, {pid})
        self.assertEqual(self.count(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                                        "WHERE globalTid / 0x1000000 % 0x1000000 != ?", pid), 0)
        self.assertEqual(self.count(db, "SELECT pid FROM GPROF_FILES"), pid)

    def test_queries_written_for_nsys_run(self):
        """Queries as nsys's documentation and recipes write them: the GPU named from
        TARGET_INFO_GPU, contextId and NVTX's textId named (NULL here), names via shortName."""
        files = self.record("nvtx_ranges")
        db = self.export(*files)
        rows = db.execute("""
            SELECT start, (end - start) AS duration, printf('%s (%d)', gpu.name, deviceId),
                   contextId AS context, streamId AS stream, str.value AS name,
                   correlationId, globalPid / 0x1000000 % 0x1000000 AS PID
            FROM CUPTI_ACTIVITY_KIND_KERNEL AS kern
            LEFT JOIN TARGET_INFO_GPU AS gpu ON gpu.id == kern.deviceId
            LEFT JOIN StringIds AS str ON str.id == kern.shortName""").fetchall()
        self.assertEqual(len(rows), 10)  # nvtx_ranges launches `scale` 10 times
        self.assertEqual({(r[2], r[3], r[5]) for r in rows},
                         {("gprof fake GPU 0 (0)", None, "scale")})
        ranges = db.execute("""
            SELECT coalesce(n.text, s.value) FROM NVTX_EVENTS AS n
            LEFT JOIN StringIds AS s ON s.id = n.textId
            WHERE n.eventType = (SELECT id FROM ENUM_NSYS_EVENT_TYPE
                                 WHERE name = 'NvtxPushPopRange')""").fetchall()
        self.assertEqual(sorted(r[0] for r in ranges).count("worker"), 3)
        classes = dict(db.execute("""
            SELECT e.name, count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r
            JOIN ENUM_NSYS_EVENT_CLASS AS e ON e.id = r.eventClass GROUP BY e.name"""))
        self.assertEqual(list(classes), ["TRACE_PROCESS_EVENT_CUDA_RUNTIME"])

    def test_threads_streams_graphs_and_nvtx(self):
        nvtx = self.record("nvtx_ranges")
        files = self.record("threads_streams") + self.record("graph_launch") + nvtx
        db = self.export(*files)
        self.check_against_report(files, db)
        self.assertEqual(self.count(db, "SELECT count(*) FROM GPROF_FILES"), 3)
        # nvtx_ranges: its named threads, the cross-thread range, its domain.
        names = {r[0] for r in db.execute(
            "SELECT s.value FROM ThreadNames AS t JOIN StringIds AS s ON s.id = t.nameId")}
        self.assertTrue({"main thread", "worker 0", "worker 1", "worker 2"} <= names, names)
        self.assertEqual(self.count(db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 60 "
                                        "AND text = 'handoff' AND endGlobalTid != globalTid"), 1)
        self.assertEqual(self.count(db, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 75 "
                                        "AND text = 'gprof.test'"), 1)
        report = self.report(nvtx[0])
        ranges = self.rows(report, "range")
        got = {n: c for n, c in db.execute("""
            SELECT s.value, count(*) FROM GPROF_NVTX AS g
            JOIN NVTX_EVENTS AS e USING (eventId) JOIN StringIds AS s ON s.id = g.rowNameId
            WHERE e.globalTid / 0x1000000 % 0x1000000 = ? AND e.eventType IN (59, 60)
            GROUP BY g.rowNameId""", (report["files"][0]["pid"],))}
        self.assertEqual(got, {n: r["count"] for n, r in ranges.items()})
        # Marks are no report rows: "begin" once, "worker done" per worker.
        self.assertEqual(dict(db.execute("SELECT text, count(*) FROM NVTX_EVENTS "
                                         "WHERE eventType = 34 GROUP BY text")),
                         {"begin": 1, "worker done": 3})
        self.assertEqual(self.count(db, "SELECT openAtExit FROM GPROF_FILES WHERE pid = ?",
                                    report["files"][0]["pid"]), 1)

    def test_driver_api_calls(self):
        """Driver-API launches (through CUPTI's callbacks) are rows of the driver class."""
        files = self.record("driver_launch")
        db = self.export(*files)
        self.check_against_report(files, db)
        classes = dict(db.execute("""
            SELECT e.name, count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r
            JOIN ENUM_NSYS_EVENT_CLASS AS e ON e.id = r.eventClass GROUP BY e.name"""))
        self.assertEqual(classes, {"TRACE_PROCESS_EVENT_CUDA_DRIVER": 10})

    def test_ranks_stay_apart(self):
        job = os.path.join(self.tmp, "job")
        os.makedirs(job)
        for rank, iterations in (("0", "2"), ("1", "7")):
            self.record("vector_add", "--iterations", iterations, outdir=job,
                        env={"RANK": rank, "GPROF_OUTPUT": os.path.join(job, f"r{rank}-%p.gprof")})
        db = self.export(job)
        per_rank = db.execute(doc_queries()["per_rank"]).fetchall()
        self.assertEqual([r[0] for r in per_rank], ["0", "1"])
        self.assertEqual([r[3] for r in per_rank], [2, 7])
        launches = dict(db.execute("""
            SELECT f.rank, count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r
            JOIN StringIds AS s ON s.id = r.nameId
            JOIN GPROF_FILES AS f ON f.globalPid = r.globalTid - r.globalTid % 0x1000000
            WHERE s.value = 'cudaLaunchKernel' GROUP BY f.rank"""))
        self.assertEqual(launches, {"0": 2, "1": 7})
        self.assertEqual(self.count(db, "SELECT count(DISTINCT globalPid) FROM "
                                        "CUPTI_ACTIVITY_KIND_KERNEL"), 2)
        # Launches join only their own process's kernels, though correlation ids repeat.
        self.assertEqual(len(db.execute(doc_queries()["launches"]).fetchall()), 9)

    def assertNothingLeft(self, directory, *allowed):
        left = sorted(f for f in os.listdir(directory)
                      if f not in allowed and not f.endswith(".gprof"))
        self.assertEqual(left, [], "the export left files behind")

    def fails(self, *args):
        done = subprocess.run([GPUPROF, "export", *args], capture_output=True, text=True,
                              timeout=120)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertRegex(done.stderr, r"^gpuprof: error: ")
        return done.stderr

    def test_bad_inputs_exit_2_and_leave_nothing(self):
        good = self.record("vector_add", "--iterations", "2")[0]
        out = os.path.join(self.tmp, "out.sqlite")
        corrupt = os.path.join(self.tmp, "corrupt.gprof")
        with open(corrupt, "wb") as f:
            f.write(b"GPROF\0\0\0" + b"\xff" * 64)  # the magic, then nonsense
        err = self.fails(good, corrupt, "-o", out)
        self.assertIn("corrupt.gprof", err)
        self.assertIn(f"nothing written to {out}", err)
        not_gprof = os.path.join(self.tmp, "notes.txt")
        with open(not_gprof, "w") as f:
            f.write("not a profile\n")
        self.assertIn("notes.txt", self.fails(not_gprof, "-o", out))
        self.assertIn("missing.gprof", self.fails(os.path.join(self.tmp, "missing.gprof"),
                                                  "-o", out))
        self.assertNothingLeft(self.tmp, "notes.txt")
        # An output that cannot be created.
        err = self.fails(good, "-o", os.path.join(self.tmp, "no", "such", "dir.sqlite"))
        self.assertIn("cannot create", err)
        self.assertIn("No such file or directory", err)
        # An existing output: kept unless --force; a recording is never replaced.
        with open(out, "w") as f:
            f.write("keep me\n")
        self.assertIn("exists (--force replaces it)", self.fails(good, "-o", out))
        with open(out) as f:
            self.assertEqual(f.read(), "keep me\n")
        self.fails(corrupt, "-o", out, "--force")
        with open(out) as f:
            self.assertEqual(f.read(), "keep me\n", "a failed export replaced the output")
        self.assertIn("is one of the inputs", self.fails(good, "-o", good, "--force"))
        other = self.record("vector_add", "--iterations", "1")[0]
        self.assertIn("is a sidecar file", self.fails(good, "-o", other, "--force"))
        self.assertEqual(len(self.report(other)["files"]), 1, "the recording was damaged")
        gpuprof("export", good, "-o", out, "--force")
        with sqlite3.connect(out) as db:
            self.assertEqual(self.count(db, "SELECT count(*) FROM GPROF_FILES"), 1)
        self.assertNothingLeft(self.tmp, "notes.txt", "out.sqlite")

    def test_a_write_error_leaves_nothing(self):
        """A disk that fills up mid-export (here: a file size limit, whose SIGXFSZ is ignored
        so that write() fails with EFBIG) is an error, and the half-written database goes."""
        good = self.record("train_loop", "--steps", "3")[0]
        out = os.path.join(self.tmp, "full.sqlite")

        def small_disk():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

        done = subprocess.run([GPUPROF, "export", good, "-o", out], capture_output=True,
                              text=True, timeout=120, preexec_fn=small_disk)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertRegex(done.stderr, r"^gpuprof: error: cannot write .*full\.sqlite: ")
        self.assertNothingLeft(self.tmp)

    def test_truncated_file_is_exported_with_a_warning(self):
        good = self.record("vector_add", "--iterations", "3")[0]
        cut = os.path.join(self.tmp, "cut.gprof")
        with open(good, "rb") as f:
            data = f.read()
        with open(cut, "wb") as f:
            f.write(data[:len(data) - 7])
        done = gpuprof("export", cut, "-o", os.path.join(self.tmp, "cut.sqlite"))
        self.assertIn("gpuprof: warning: ", done.stderr)
        with sqlite3.connect(os.path.join(self.tmp, "cut.sqlite")) as db:
            self.assertEqual(self.count(db, "SELECT complete FROM GPROF_FILES"), 0)
