"""Damaged sidecar files against every command. gpuprof-damage (tools/gen/damage.cc) changes
records so that each frame's checksum still holds, which takes the damage past the checksum into
the decoders and the commands: numbers at their type's edges, strings that are not UTF-8, batch
columns of unequal length, frames dropped, repeated or moved. Each command must finish, exit 0
or with its documented status and a "gpuprof:" line that says why, never die of a signal or an
exception, never print libprotobuf's own errors, never exceed a memory limit, and what it writes
must parse (JSON, SQLite). The streamed report (its key-averages, launches and memory views) must
equal the in-memory one on every damaged file (it may read the file in memory, with its note, but
never print other numbers)."""

import json
import os
import random
import resource
import sqlite3
import subprocess
import unittest

from gprof_e2e import GPUPROF, E2ETestCase, program, run_program

GEN = os.environ.get("GPUPROF_GEN", "")
DAMAGE = os.environ.get("GPUPROF_DAMAGE", "")
CASES = int(os.environ.get("GPROF_DAMAGE_CASES", "60"))
# Another seed explores other damage (a longer run by hand: GPROF_DAMAGE_CASES=1000).
SEED = int(os.environ.get("GPROF_DAMAGE_SEED", "0"))
# Far above what these small files need: a command that sizes a table by a damaged id fails.
# 0: none (scripts/sanitize: AddressSanitizer reserves terabytes of address space).
MEMORY_LIMIT = int(os.environ.get("GPROF_DAMAGE_MEMORY_LIMIT", str(2 << 30)))


def limited():
    if MEMORY_LIMIT:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def gpuprof(args, env=None):
    full = dict(os.environ)
    full.pop("GPROF_STREAM", None)
    full.update(env or {})
    return subprocess.run([GPUPROF, *args], capture_output=True, text=True, errors="replace",
                          env=full, timeout=120, preexec_fn=limited)


class DamagedFiles(E2ETestCase):
    def record(self, *args):
        run = run_program([program(args[0]), *args[1:]], self.tmp)
        self.assertEqual(run.returncode, 0, run.stderr)
        return run.files

    def base_files(self):
        files = (self.record("train_loop") + self.record("graph_launch") +
                 self.record("nvtx_ranges") + self.record("more_apis") +
                 self.record("threads_streams", "--launches", "10"))
        gen = subprocess.run([GEN, "--records", "20K", "--ranks", "2", "--ops-per-step", "20",
                              "-o", os.path.join(self.tmp, "gen-%r.gprof")],
                             capture_output=True, text=True)
        self.assertEqual(gen.returncode, 0, gen.stderr)
        files += [os.path.join(self.tmp, f"gen-{r}.gprof") for r in range(2)]
        return files

    def check(self, what, run, allowed=(0,)):
        self.assertGreaterEqual(run.returncode, 0,
                                f"{what}: killed by signal {-run.returncode}: {run.stderr[-3000:]}")
        self.assertIn(run.returncode, allowed, f"{what}: {run.stderr[-600:]}")
        for text in ("terminate called", "libprotobuf", "what():", "Assertion"):
            self.assertNotIn(text, run.stderr, what)
        if run.returncode != 0 and not what.startswith("diff"):
            self.assertIn("gpuprof:", run.stderr, what)

    def test_every_command_survives_damage(self):
        bases = self.base_files()
        rng = random.Random(13 + SEED)
        out = os.path.join(self.tmp, "out")
        for case in range(CASES):
            base = rng.choice(bases)
            path = os.path.join(self.tmp, f"damaged-{case}.gprof")
            changes = str(rng.choice([1, 1, 2, 4, 16]))
            made = subprocess.run([DAMAGE, base, "-o", path, "--seed", str(SEED * 1000003 + case),
                                   "--changes", changes], capture_output=True, text=True)
            self.assertEqual(made.returncode, 0, made.stderr)
            with self.subTest(case=case, base=os.path.basename(base)):
                self.check_commands(path, base, out)

    def check_commands(self, path, base, out):
        streamed = gpuprof(["report", "--quiet", "--limit", "0", path])
        in_memory = gpuprof(["report", "--quiet", "--limit", "0", path], {"GPROF_STREAM": "0"})
        self.check("report", streamed, (0, 1))
        self.check("report in memory", in_memory, (0, 1))
        self.assertEqual((streamed.returncode, streamed.stdout),
                         (in_memory.returncode, in_memory.stdout))

        # A row per op, its rows and labels spilled past a few (GPROF_STREAM=spill-rows).
        seq = ["report", "--quiet", "--limit", "0", "--group-by", "seq", path]
        spilled = gpuprof(seq, {"GPROF_STREAM": "spill-rows"})
        self.check("report --group-by seq spilled", spilled, (0, 1))
        in_memory = gpuprof(seq, {"GPROF_STREAM": "0"})
        self.assertEqual((spilled.returncode, spilled.stdout),
                         (in_memory.returncode, in_memory.stdout))

        as_json = gpuprof(["report", "--quiet", "--format", "json", path])
        self.check("report json", as_json, (0, 1))
        if as_json.returncode == 0:
            json.loads(as_json.stdout)
        for view in ("launches", "memory", "ranges"):
            args = ["report", "--quiet", "--limit", "0", "--view", view, path]
            streamed = gpuprof(args)
            self.check(view, streamed, (0, 1))
            if view != "ranges":  # launches and memory stream too (view_streams.h)
                in_memory = gpuprof(args, {"GPROF_STREAM": "0"})
                self.assertEqual((streamed.returncode, streamed.stdout),
                                 (in_memory.returncode, in_memory.stdout), view)
        self.check("group-by stream", gpuprof(["report", "--quiet", "--group-by", "stream", path]),
                   (0, 1))

        trace = gpuprof(["trace", "--quiet", path, "-o", out + ".json"])
        self.check("trace", trace, (0, 1))
        if trace.returncode == 0:
            with open(out + ".json") as f:
                self.assertIn("traceEvents", json.load(f))

        export = gpuprof(["export", "--quiet", path, "-o", out + ".sqlite", "--force"])
        self.check("export", export, (0, 2))
        if export.returncode == 0:
            db = sqlite3.connect(out + ".sqlite")
            db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()
            db.close()

        analyze = gpuprof(["analyze", "--quiet", "--format", "json", path])
        self.check("analyze", analyze, (0, 2))
        if analyze.returncode == 0:
            json.loads(analyze.stdout)
        info = gpuprof(["info", path])
        self.check("info", info, (0, 1))
        in_memory = gpuprof(["info", path], {"GPROF_STREAM": "0"})
        self.assertEqual((info.returncode, info.stdout), (in_memory.returncode, in_memory.stdout))
        dumped = gpuprof(["dump", "--quiet", "--records", "all", path])
        self.check("dump", dumped, (0, 1))
        if dumped.returncode == 0:
            for line in dumped.stdout.splitlines():
                json.loads(line)
        # dump streams (API records and ranges in one read, GPU records in two more): the
        # in-memory loader's lines.
        loaded = gpuprof(["dump", "--quiet", "--records", "all", path], {"GPROF_STREAM": "0"})
        self.assertEqual((dumped.returncode, dumped.stdout), (loaded.returncode, loaded.stdout))
        api = gpuprof(["dump", "--quiet", path])
        self.check("dump api", api, (0, 1))
        self.assertEqual((api.returncode, api.stdout), (loaded.returncode, "".join(
            line for line in loaded.stdout.splitlines(keepends=True)
            if line.endswith('"type":"api"}\n'))))
        # The documented statuses: 1 a regression, 2 a side that cannot be read.
        self.check("diff", gpuprof(["diff", "--quiet", base, path]), (0, 1, 2))


if __name__ == "__main__":
    unittest.main()
