"""The gpuprof command line as a user meets it: suggestions for typos, "gpuprof:" on every
parser error, exit statuses in every --help, shell completion, the man page, a file still
being written told apart from one a crashed run left (issue 18, item 6), and output that could
not be written never taken for success."""

import os
import re
import shutil
import signal
import subprocess
import time
import unittest

from gprof_e2e import (FAKE_LIBRARY_PATH, GPUPROF, LIBGPROF, SOURCE, E2ETestCase, gpuprof,
                       program)

GOLDEN = os.path.join(SOURCE, "test", "unit", "tools", "golden", "training.gprof")


def commands():
    """The commands `gpuprof --help` lists."""
    out = gpuprof("--help").stdout
    listed = out[out.index("Subcommands:"):]
    return re.findall(r"^\s{2}(\w[\w-]*)\s", listed, re.M)


class Suggestions(unittest.TestCase):
    def test_mistyped_command(self):
        out = gpuprof("reprot", GOLDEN, check=False)
        self.assertEqual(out.returncode, 2)
        self.assertEqual(out.stdout, "")
        self.assertTrue(out.stderr.startswith(
            "gpuprof: error: 'reprot' is not a gpuprof command; did you mean 'report'?\n"),
            out.stderr)
        self.assertIn("Commands: report, info, dump, trace, export, diff, analyze, record, "
                      "completion.",
                      out.stderr)
        self.assertIn("did you mean 'trace'?", gpuprof("trace_", check=False).stderr)
        # Nothing close: no guess, but the list.
        out = gpuprof("frobnicate", check=False)
        self.assertNotIn("did you mean", out.stderr)
        self.assertIn("Commands: report", out.stderr)

    def test_mistyped_sort_key(self):
        out = gpuprof("report", "--sort", "self_cuda_time_totl", GOLDEN, check=False)
        self.assertEqual(out.returncode, 2)
        self.assertIn("unknown sort key 'self_cuda_time_totl'", out.stderr)
        self.assertIn("did you mean 'self_cuda_time_total'?", out.stderr)
        # A prefix of a key is as likely a slip as a typo.
        out = gpuprof("report", "--sort", "self_cpu_time", GOLDEN, check=False)
        self.assertIn("did you mean 'self_cpu_time_total'?", out.stderr)
        out = gpuprof("diff", "--sort", "self_cdua", GOLDEN, GOLDEN, check=False)
        self.assertEqual(out.returncode, 2)
        self.assertIn("did you mean 'self_cuda'?", out.stderr)
        out = gpuprof("diff", "--metrics", "count,cpu_totl", GOLDEN, GOLDEN, check=False)
        self.assertIn("--metrics: unknown metric 'cpu_totl'", out.stderr)
        self.assertIn("did you mean 'cpu_total'?", out.stderr)
        out = gpuprof("report", "--view", "kernel", GOLDEN, check=False)
        self.assertIn("did you mean 'kernels'?", out.stderr)

    def test_mistyped_option(self):
        out = gpuprof("report", "--sortt", "name", GOLDEN, check=False)
        self.assertEqual(out.returncode, 2)
        self.assertIn("did you mean '--sort'?", out.stderr)


class ParserErrors(unittest.TestCase):
    def test_every_parser_error_says_gpuprof(self):
        cases = [("report",), ("report", "--limit", "x", GOLDEN), ("report", "--nope", GOLDEN),
                 ("diff", "--alpha", "0.9", GOLDEN, GOLDEN), ("trace", GOLDEN), (),
                 ("dump", "--records", "some", GOLDEN)]
        for args in cases:
            out = gpuprof(*args, check=False)
            self.assertEqual(out.returncode, 2, args)
            self.assertTrue(out.stderr.startswith("gpuprof: error: "), (args, out.stderr))
            self.assertIn("--help", out.stderr)

    def test_exit_statuses_in_every_help(self):
        self.assertIn("Exit status:", gpuprof("--help").stdout)
        names = commands()
        self.assertEqual(set(names), {"report", "info", "dump", "trace", "export", "diff",
                                      "analyze", "record", "completion"})
        for name in names:
            text = gpuprof(name, "--help").stdout
            self.assertIn("\nExit status: ", text, name)
            self.assertIn(" 2 bad usage", text, name)


@unittest.skipUnless(os.path.exists("/dev/full"), "no /dev/full")
class OutputLost(unittest.TestCase):
    """A full disk under stdout: the command says so and fails with the status its --help gives
    for what it cannot write, so that a CI gate never reads a cut report as a whole one, nor
    diff's lost output as a regression (1)."""

    def run_into_full(self, *args):
        with open("/dev/full", "w") as full:
            return subprocess.run([GPUPROF, *args], stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=120)

    def test_every_reading_command(self):
        cases = [(("report", GOLDEN), 1), (("report", "--format", "json", GOLDEN), 1),
                 (("report", "--format", "csv", "--limit", "0", GOLDEN), 1),
                 (("info", GOLDEN), 1), (("dump", GOLDEN), 1),
                 (("analyze", GOLDEN), 2), (("analyze", "--format", "json", GOLDEN), 2),
                 (("diff", GOLDEN, GOLDEN), 2), (("trace", "-o", "-", GOLDEN), 1),
                 (("--help",), 1), (("report", "--help"), 1), (("diff", "--help"), 2)]
        for args, status in cases:
            with self.subTest(args=args):
                out = self.run_into_full(*args)
                self.assertEqual(out.returncode, status, out.stderr)
                lines = [line for line in out.stderr.splitlines() if "error" in line]
                self.assertEqual(len(lines), 1, out.stderr)
                self.assertRegex(lines[0], r"^gpuprof: error: (could not write the output to "
                                 r"stdout|cannot write stdout)")
                # The same command into a pipe that takes it all succeeds.
                self.assertEqual(gpuprof(*args, check=False).returncode, 0)


class Completion(E2ETestCase):
    def complete(self, *words):
        """COMPREPLY for the command line `words`, the last being the word under the cursor."""
        script = gpuprof("completion", "bash").stdout
        path = os.path.join(self.tmp, "gpuprof.bash")
        with open(path, "w", encoding="utf-8") as f:
            f.write(script)
        line = " ".join(["gpuprof", *words])
        cmd = (f'source {path}; COMP_WORDS=(gpuprof {" ".join(repr(w) for w in words)}); '
               f'COMP_CWORD={len(words)}; COMP_LINE="{line}"; _gpuprof; '
               'printf "%s\\n" "${COMPREPLY[@]}"')
        out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=self.tmp,
                             check=True)
        return out.stdout.split()

    @unittest.skipIf(shutil.which("bash") is None, "no bash")
    def test_bash_completion(self):
        self.assertEqual(self.complete("rep"), ["report"])
        self.assertEqual(self.complete("d"), ["dump", "diff"])
        self.assertEqual(self.complete("report", "--so"), ["--sort"])
        self.assertEqual(self.complete("report", "--view", "k"), ["kernels"])
        self.assertEqual(self.complete("diff", "--format", ""), ["text", "md", "json", "junit"])
        self.assertEqual(self.complete("analyze", "--fail-on", "gpu"), ["gpu-idle"])
        self.assertIn("all", self.complete("analyze", "--fail-on", ""))
        self.assertIn("self_cuda_time_total", self.complete("report", "--sort", "self_c"))
        self.assertIn("--busy-bucket", self.complete("trace", "--"))
        open(os.path.join(self.tmp, "run-1.gprof"), "w").close()
        self.assertEqual(self.complete("info", "run"), ["run-1.gprof"])
        self.assertIn("bash", self.complete("record", "--", "bas"))
        self.assertEqual(self.complete("completion", "b"), ["bash"])

    def test_unknown_shell(self):
        out = gpuprof("completion", "tcsh", check=False)
        self.assertEqual(out.returncode, 2)
        self.assertTrue(out.stderr.startswith("gpuprof: error: "), out.stderr)


class ManPage(unittest.TestCase):
    def test_man_page_is_current(self):
        with open(os.path.join(SOURCE, "docs", "gpuprof.1"), encoding="utf-8") as f:
            page = f.read()
        self.assertEqual(page, gpuprof("man-page").stdout,
                         "docs/gpuprof.1 is stale: build/tools/gpuprof man-page > docs/gpuprof.1")
        for name in commands():
            self.assertIn(f".SS {name}\n", page)
        self.assertIn(".SH EXIT STATUS", page)
        self.assertIn("\\fB\\-\\-fail\\-on\\fR \\fIRULE\\fR", page)

    @unittest.skipIf(shutil.which("groff") is None, "no groff")
    def test_man_page_renders(self):
        out = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z",
                              os.path.join(SOURCE, "docs", "gpuprof.1")],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stderr, "")

    def test_hidden_from_the_command_list(self):
        self.assertNotIn("man-page", gpuprof("--help").stdout)


class StillBeingWritten(E2ETestCase):
    """A file without a footer: its process running (come back later) or gone (what is there
    is all there will be)."""

    def test_running_then_killed(self):
        env = dict(os.environ, LD_PRELOAD=LIBGPROF, LD_LIBRARY_PATH=FAKE_LIBRARY_PATH,
                   GPROF_OUTPUT=os.path.join(self.tmp, "live-%p.gprof"))
        proc = subprocess.Popen([program("launch_loop"), "1000000000", "1000"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            path = os.path.join(self.tmp, f"live-{proc.pid}.gprof")
            deadline = time.time() + 30
            while time.time() < deadline and (not os.path.exists(path)
                                               or os.path.getsize(path) < 4096):
                time.sleep(0.1)
            info = gpuprof("info", path)
            self.assertRegex(info.stdout, rf"Integrity: +still being written \(pid {proc.pid} "
                                          r"is running\): incomplete \(no footer")
            report = gpuprof("report", path)
            self.assertIn(f"gpuprof: warning: {path}: still being written (pid {proc.pid} is "
                          "running)", report.stderr)
            self.assertNotIn("crashed", info.stdout + report.stderr)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        info = gpuprof("info", path)
        self.assertNotIn("still being written", info.stdout + info.stderr)
        self.assertIn("the recording process ended without finishing the file (killed or "
                      "crashed?)", info.stdout)
        report = gpuprof("report", path)
        self.assertIn("ended without finishing the file", report.stderr)


if __name__ == "__main__":
    unittest.main()
