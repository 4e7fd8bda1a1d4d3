"""Shared helpers of the real-client tests: find the virtual environment that
scripts/setup makes (scripts/client-venv; meson passes its path as
GPROF_CLIENTS_VENV_DEFAULT, and GPROF_CLIENTS_VENV, when set, names another),
run its Python under the real LD_PRELOAD, and skip the whole suite, exit
status 77 for meson, when the environment is absent."""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.environ.get("GPROF_CLIENTS_VENV") or os.environ.get("GPROF_CLIENTS_VENV_DEFAULT", "")
LIBGPROF = os.environ.get("GPROF_LIB", "")
# scripts/client-venv writes it last: a venv without it was cut short.
COMPLETE_MARK = ".gprof-complete"
SKIP = 77  # meson's "skipped" exit status


def venv_python():
    return os.path.join(VENV, "bin", "python")


def missing_reason():
    if not VENV:
        return ("GPROF_CLIENTS_VENV_DEFAULT is not set (meson sets it: run the tests with "
                "meson test)")
    if not os.path.isfile(os.path.join(VENV, COMPLETE_MARK)):
        return (f"no client test environment at {VENV} (scripts/setup creates it; "
                f"GPROF_SETUP_CLIENTS=0 skips that)")
    return None


def main():
    """unittest.main(), or exit 77 with the reason when the environment is absent."""
    reason = missing_reason()
    if reason:
        print(f"SKIP: {reason}")
        sys.exit(SKIP)
    unittest.main(verbosity=2)


def run_python(args, outdir, preload=True, env=None, timeout=300):
    """Runs the venv's Python on a script of this folder, under the shim unless preload is
    False; returns (CompletedProcess, the sidecar files it wrote in outdir)."""
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("GPROF_") and k not in ("LD_PRELOAD", "LD_LIBRARY_PATH")}
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    e.pop("PYTHONPATH", None)
    if preload:
        e["LD_PRELOAD"] = LIBGPROF
        e["GPROF_OUTPUT"] = os.path.join(outdir, "run-%p.gprof")
    if env:
        e.update(env)
    before = set(os.listdir(outdir))
    script, *rest = args
    completed = subprocess.run([venv_python(), os.path.join(HERE, script), *rest], env=e,
                               capture_output=True, text=True, timeout=timeout, cwd=outdir)
    if completed.returncode != 0:
        raise AssertionError(f"{script} {' '.join(rest)} failed ({completed.returncode}):\n"
                             f"{completed.stdout}\n{completed.stderr}")
    files = sorted(os.path.join(outdir, f) for f in set(os.listdir(outdir)) - before
                   if f.endswith(".gprof"))
    return completed, files
