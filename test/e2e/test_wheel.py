"""The wheel, the way a user gets it: `python -m build` (meson-python, CUDA's
headers from NVIDIA's pip packages, no Toolkit), `auditwheel repair`, then
`pip install` into a fresh virtual environment, and `gpuprof record` and
`gpuprof report` from that environment on a test program on the fakes, with
no GPROF_LIB: the installed gpuprof finds the installed libgprof.so. The
PyTorch test of test/clients runs again against the installed wheel.

The wheel is built once per build tree (in <build>/wheel, kept between runs
so that a second run only relinks) in the environment scripts/wheel-venv
makes; without it the test is skipped (exit status 77)."""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from gprof_e2e import BUILD, FAKE_LIBRARY_PATH, SOURCE, parse_table, parse_time_ns, program
from test_record import VECTOR_ADD, written_files

KERNEL_NS = 20000  # the fake runtime's time per kernel (test/fakes)
SKIP = 77
VENV = os.environ.get("GPROF_WHEEL_VENV") or os.environ.get("GPROF_WHEEL_VENV_DEFAULT", "")
CLIENTS_DIR = os.path.join(SOURCE, "test", "clients")
# The libraries the wheel's ELF files may ask for: glibc's, libstdc++ for the shim (the
# program it is loaded into has one; the binary links it statically) and ISA-L, which
# auditwheel copies in under a name of its own. Nothing of CUDA: the shim loads CUPTI and
# finds the runtime in the process.
GLIBC = {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"}
ISAL_RE = re.compile(r"^libisal-[0-9a-f]{8}\.so\.2[.0-9]*$")
# auditwheel wraps its lines anywhere.
POLICY_RE = re.compile(r'consistent\s+with\s+the\s+following\s+platform\s+tag:\s+'
                       r'"(manylinux_(\d+)_(\d+)_x86_64)"')


def run(args, timeout=600, **kwargs):
    completed = subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kwargs)
    if completed.returncode != 0:
        raise AssertionError(f"{' '.join(args)} failed ({completed.returncode}):\n"
                             f"{completed.stdout}\n{completed.stderr}")
    return completed


def needed(path):
    out = run(["readelf", "-d", path]).stdout
    return set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))


def build_wheel(out):
    """python -m build, then auditwheel repair; returns (repaired wheel, auditwheel show,
    the headers the build's objects were compiled from)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GPROF_", "MESON", "PYTHON", "LD_"))}
    env["PATH"] = os.path.join(VENV, "bin") + os.pathsep + env["PATH"]
    dist = os.path.join(out, "dist")
    shutil.rmtree(dist, ignore_errors=True)
    python = os.path.join(VENV, "bin", "python")
    # The build requirements are the venv's (pinned): no download per run.
    run([python, "-m", "build", "--wheel", "--no-isolation", "--outdir", dist,
         f"-Cbuild-dir={os.path.join(out, 'meson')}", f"-Ccompile-args=-j{os.cpu_count() or 2}",
         SOURCE], env=env, timeout=1500)
    [plain] = glob.glob(os.path.join(dist, "gprof-*-linux_x86_64.whl"))
    run([python, "-m", "auditwheel", "repair", "-w", os.path.join(dist, "repaired"), plain],
        env=env)
    [repaired] = glob.glob(os.path.join(dist, "repaired", "gprof-*manylinux*.whl"))
    show = run([python, "-m", "auditwheel", "show", repaired], env=env).stdout
    deps = run([os.path.join(VENV, "bin", "ninja"), "-C", os.path.join(out, "meson"), "-t", "deps"],
               env=env).stdout
    headers = {os.path.realpath(os.path.join(out, "meson", line.strip()))
               for line in deps.splitlines() if line.startswith("    ")}
    return repaired, show, headers


class Wheel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.wheel, cls.show, cls.headers = build_wheel(os.path.join(BUILD, "wheel"))
        cls._tmp = tempfile.TemporaryDirectory(prefix="gprof-wheel-")
        cls.venv = os.path.join(cls._tmp.name, "venv")
        run([sys.executable, "-m", "venv", cls.venv])
        run([os.path.join(cls.venv, "bin", "python"), "-m", "pip", "install", "--quiet",
             "--no-index", "--disable-pip-version-check", cls.wheel])
        cls.gpuprof = os.path.join(cls.venv, "bin", "gpuprof")
        cls.library = run([os.path.join(cls.venv, "bin", "python"), "-c",
                           "import gprof; print(gprof.library_path())"]).stdout.strip()

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=self._tmp.name)

    def user_env(self):
        """A user's shell after `pip install`: the venv's bin on PATH, no gprof settings."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GPROF_", "PYTHON")) or k.startswith("GPROF_FAKE_")}
        for name in ("LD_PRELOAD", "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"):
            env.pop(name, None)
        env["PATH"] = os.path.join(self.venv, "bin") + os.pathsep + env["PATH"]
        env["LD_LIBRARY_PATH"] = FAKE_LIBRARY_PATH
        return env

    def record(self, *command):
        completed = subprocess.run([*command, "record", "--", program("vector_add"), "--iterations",
                                    "3"], env=self.user_env(), cwd=self.tmp, capture_output=True,
                                   text=True, timeout=120)
        self.assertEqual(completed.returncode, 0, completed.stderr)
        files = written_files(completed.stderr)
        self.assertEqual(len(files), 1, completed.stderr)
        return completed, os.path.join(self.tmp, files[0])

    def test_policy_and_what_the_files_link(self):
        """auditwheel finds a manylinux policy; the shim and the binary link no CUDA library
        and none of the CLI's (protobuf, fmt, SQLite, zlib: static), but ISA-L, copied in."""
        m = POLICY_RE.search(self.show)
        self.assertIsNotNone(m, self.show)
        self.assertIn(m.group(1), os.path.basename(self.wheel))
        package = os.path.dirname(self.library)
        self.assertEqual(os.path.basename(package), "lib")
        package = os.path.dirname(package)
        self.assertEqual(needed(self.library) - GLIBC, {"libstdc++.so.6", "libgcc_s.so.1"})
        binary = needed(os.path.join(package, "bin", "gpuprof"))
        isal = {n for n in binary if ISAL_RE.match(n)}
        self.assertEqual(len(isal), 1, binary)
        self.assertEqual(binary - isal - GLIBC, set(), binary)

    def test_built_on_the_pip_packages_headers_not_a_toolkit(self):
        """CUDA's headers come from NVIDIA's pip packages (nvidia/cu13/include of the build
        environment), none from a Toolkit, even where one is installed (its include folder
        may be linked into /usr/local/include: real paths are compared)."""
        pip_include = os.path.realpath(os.path.join(glob.glob(os.path.join(
            VENV, "lib", "python3*", "site-packages", "nvidia", "cu13", "include"))[0]))
        by_name = {os.path.basename(h): h for h in self.headers if h.startswith(pip_include)}
        for name in ("cupti.h", "cuda.h", "cuda_runtime_api.h", "cuda_profiler_api.h",
                     "host_defines.h", "nvToolsExt.h"):
            self.assertIn(name, by_name)
        toolkits = {os.path.realpath(d) + os.sep for d in
                    glob.glob("/usr/local/cuda*") + [os.environ.get("CUDA_HOME", "/usr/local/cuda")]}
        from_toolkit = sorted(h for h in self.headers if any(h.startswith(t) for t in toolkits))
        self.assertEqual(from_toolkit, [])

    def test_record_and_report_without_gprof_lib(self):
        completed, path = self.record("gpuprof")
        rows, _, _ = parse_table(completed.stderr)
        self.assertEqual(rows[VECTOR_ADD]["# of Calls"], "3")
        self.assertEqual(parse_time_ns(rows[VECTOR_ADD]["CUDA total"]), 3 * KERNEL_NS)
        report = json.loads(run([self.gpuprof, "report", "--format", "json", path],
                                env=self.user_env()).stdout)
        kernel = {r["name"]: r for r in report["rows"]}[VECTOR_ADD]
        self.assertEqual((kernel["count"], kernel["self_cuda_ns"]), (3, 3 * KERNEL_NS))
        launches = {r["name"]: r for r in report["rows"]}["cudaLaunchKernel"]
        self.assertEqual(launches["count"], 3)

    def test_python_m_gprof_is_gpuprof(self):
        python = os.path.join(self.venv, "bin", "python")
        completed, path = self.record(python, "-m", "gprof")
        rows, _, _ = parse_table(completed.stderr)
        self.assertEqual(rows[VECTOR_ADD]["# of Calls"], "3")
        version = run([python, "-m", "gprof", "--version"]).stdout
        self.assertEqual(version, run([self.gpuprof, "--version"]).stdout)
        self.assertRegex(version, r"\b0\.\d+\.\d+\b")

    def test_library_path_man_page_and_completion(self):
        self.assertTrue(self.library.startswith(self.venv + os.sep), self.library)
        self.assertTrue(os.path.isfile(self.library), self.library)
        with open(os.path.join(SOURCE, "docs", "gpuprof.1"), encoding="utf-8") as f:
            man = f.read()
        with open(os.path.join(self.venv, "share", "man", "man1", "gpuprof.1"),
                  encoding="utf-8") as f:
            self.assertEqual(f.read(), man)
        with open(os.path.join(self.venv, "share", "bash-completion", "completions", "gpuprof"),
                  encoding="utf-8") as f:
            completion = f.read()
        self.assertEqual(completion, run([self.gpuprof, "completion", "bash"]).stdout)
        self.assertIn("complete ", completion)

    def test_pytorch_client_on_the_installed_wheel(self):
        """test/clients/test_torch.py with the installed wheel's libgprof.so and gpuprof,
        all but the timing test (see test_torch.py's TIMING)."""
        env = dict(os.environ)
        env["GPROF_TORCH_TIMING"] = "0"
        env["GPROF_LIB"] = self.library
        env["GPUPROF"] = self.gpuprof
        env["PYTHONPATH"] = os.pathsep.join([CLIENTS_DIR, os.path.join(SOURCE, "test", "e2e")])
        completed = subprocess.run([sys.executable, "test_torch.py"], cwd=CLIENTS_DIR, env=env,
                                   capture_output=True, text=True, timeout=600)
        if completed.returncode == SKIP:
            self.skipTest(completed.stdout.strip())
        self.assertEqual(completed.returncode, 0, completed.stdout + completed.stderr)
        self.assertRegex(completed.stderr, r"\nOK \(skipped=1\)")


def missing_reason():
    if not VENV:
        return "GPROF_WHEEL_VENV_DEFAULT is not set (meson sets it: run the tests with meson test)"
    if not os.path.isfile(os.path.join(VENV, ".gprof-complete")):
        return f"no wheel build environment at {VENV} (scripts/setup creates it)"
    return None


if __name__ == "__main__":
    reason = missing_reason()
    if reason:
        print(f"SKIP: {reason}")
        sys.exit(SKIP)
    unittest.main(verbosity=2)
