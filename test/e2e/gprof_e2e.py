"""Shared helpers for the end-to-end tests: run test programs under the real
LD_PRELOAD on the fake (or real) CUDA runtime and read what the real CLI says.

Paths come from the environment that test/e2e/meson.build sets."""

import json
import os
import re
import subprocess
import tempfile
import unittest

BUILD = os.environ.get("GPROF_BUILD_ROOT", "")
SOURCE = os.environ.get("GPROF_SOURCE_ROOT", "")
LIBGPROF = os.environ.get("GPROF_LIB", "")
GPUPROF = os.environ.get("GPUPROF", "")
FAKE_CUDART_DIR = os.environ.get("GPROF_FAKE_CUDART_DIR", "")
# The fake runtime, CUPTI and driver together (test/fakes).
FAKE_LIBRARY_PATH = os.environ.get("GPROF_FAKE_LIBRARY_PATH") or FAKE_CUDART_DIR
PROGRAMS_DIR = os.environ.get("GPROF_PROGRAMS_DIR", "")
REAL_CUDART_DIR = os.environ.get("GPROF_REAL_CUDART_DIR", "/usr/local/cuda/lib64")


def program(name):
    return os.path.join(PROGRAMS_DIR, name)


class Run:
    def __init__(self, completed, files):
        self.returncode = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        self.files = files


def run_program(args, outdir, preload=True, runtime_dir=None, env=None, timeout=120):
    """Runs a test program; returns Run with the sidecar files it left in outdir."""
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("GPROF_") and not k.startswith("GPROF_FAKE_"):
            del e[k]
    e["LD_LIBRARY_PATH"] = (runtime_dir or os.environ.get("GPROF_FAKE_LIBRARY_PATH")
                            or FAKE_CUDART_DIR)
    if preload:
        e["LD_PRELOAD"] = LIBGPROF
        e["GPROF_OUTPUT"] = os.path.join(outdir, "run-%p.gprof")
    else:
        e.pop("LD_PRELOAD", None)
    if env:
        e.update(env)
    before = set(os.listdir(outdir))
    completed = subprocess.run(args, env=e, capture_output=True, text=True, timeout=timeout)
    files = sorted(os.path.join(outdir, f) for f in set(os.listdir(outdir)) - before
                   if ".gprof" in f)
    return Run(completed, files)


def gpuprof(*args, check=True):
    completed = subprocess.run([GPUPROF, *args], capture_output=True, text=True, timeout=120)
    if check and completed.returncode != 0:
        raise AssertionError(f"gpuprof {' '.join(args)} failed ({completed.returncode}):\n"
                             f"{completed.stdout}\n{completed.stderr}")
    return completed


def dump(path):
    """Every API record of a file, as dicts (gpuprof dump, JSON Lines)."""
    out = gpuprof("dump", path).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


TIME_RE = re.compile(r"^(-?[0-9.]+)(s|ms|us|ns)$")


def parse_time_ns(text):
    m = TIME_RE.match(text)
    if not m:
        raise ValueError(f"not a time: {text!r}")
    scale = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1}[m.group(2)]
    return float(m.group(1)) * scale


def parse_table(text):
    """Parses a torch-style table into {name: {column: cell}} and the footer lines.

    Cells are split on runs of two or more spaces rather than by the separator's widths: like
    torch's, a header longer than its column ("CUDA time avg") pushes the rest of its line."""
    lines = text.splitlines()
    seps = [i for i, l in enumerate(lines) if l.startswith("---")]
    if len(seps) < 3:
        raise AssertionError(f"no table in:\n{text}")
    def cells(line):
        return re.split(r"\s{2,}", line.strip())
    columns = cells(lines[seps[0] + 1])
    rows = {}
    for line in lines[seps[1] + 1:seps[2]]:
        values = cells(line)
        if len(values) != len(columns):
            raise AssertionError(f"row {line!r} does not match the columns {columns}")
        rows[values[0]] = dict(zip(columns, values))
    footer = lines[seps[2] + 1:]
    return rows, columns, footer


class E2ETestCase(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="gprof-e2e-")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def profile(self, args, **kwargs):
        run = run_program(args, self.tmp, **kwargs)
        return run

    def assertSameBehaviour(self, args, profiled=None, **kwargs):
        """The program prints and exits exactly as without the shim."""
        plain = run_program(args, self.tmp, preload=False, **kwargs)
        profiled = profiled or run_program(args, self.tmp, **kwargs)
        self.assertEqual(plain.stdout, profiled.stdout)
        self.assertEqual(plain.returncode, profiled.returncode)
        own = [l for l in profiled.stderr.splitlines() if not l.startswith("gprof:")]
        self.assertEqual(plain.stderr.splitlines(), own)
        return plain, profiled
