"""`gpuprof record -- CMD ARGS...` (tools/gpuprof/record/cmd_record.cc): it sets up the preload, runs the
command as a shell would (PATH lookup, exit status, signals), and then lists the files the run
wrote and prints the top rows of their report on stderr. The programs run on the fakes."""

import collections
import os
import pty
import re
import signal
import subprocess
import sys
import time
import unittest

from gprof_e2e import (E2ETestCase, FAKE_LIBRARY_PATH, GPUPROF, LIBGPROF, dump, gpuprof,
                       parse_table, parse_time_ns, program, run_program)

KERNEL_NS = 20000
VECTOR_ADD = "vector_add(float const*, float const*, float*, int)"
WROTE_RE = re.compile(r"^gpuprof: wrote (\d+) files?:$")


def clean_env(extra=None, keep_lib=True):
    """The test's environment without gprof settings (but the fakes' knobs), on the fakes."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GPROF_") or k.startswith("GPROF_FAKE_")}
    for name in ("LD_PRELOAD", "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"):
        env.pop(name, None)
    env["LD_LIBRARY_PATH"] = FAKE_LIBRARY_PATH
    if keep_lib:
        env["GPROF_LIB"] = LIBGPROF
    env.update(extra or {})
    return env


def written_files(stderr):
    """The paths after 'gpuprof: wrote N file(s):', checked against N."""
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        m = WROTE_RE.match(line)
        if m:
            count = int(m.group(1))
            paths = [l.strip() for l in lines[i + 1:i + 1 + count]]
            assert all(lines[i + 1 + k].startswith("  ") for k in range(count)), stderr
            return paths
    return []


def counts(records):
    return collections.Counter(r["name"] for r in records)


class RecordCase(E2ETestCase):
    def record(self, *args, env=None, cwd=None, keep_lib=True, timeout=120):
        return subprocess.run([GPUPROF, "record", *args], env=clean_env(env, keep_lib),
                              cwd=cwd or self.tmp, capture_output=True, text=True,
                              timeout=timeout)

    def files_in(self, directory):
        return sorted(f for f in os.listdir(directory) if ".gprof" in f)


class RunsTheCommand(RecordCase):
    def test_output_exit_status_files_and_summary(self):
        args = [program("vector_add"), "--iterations", "3"]
        run = self.record("--", *args)
        plain = run_program(args, self.tmp, preload=False)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, plain.stdout, "the program's stdout is its own")
        files = written_files(run.stderr)
        self.assertEqual(len(files), 1, run.stderr)
        self.assertRegex(files[0], r"^gprof-\d+\.gprof$", "the default pattern, relative")
        self.assertEqual(self.files_in(self.tmp), files)
        self.assertEqual(counts(dump(os.path.join(self.tmp, files[0])))["cudaLaunchKernel"], 3)
        # The summary: the ops table, its top rows by CUDA total.
        self.assertIn("Top 10 of ", run.stderr)
        self.assertIn(" rows by CUDA total:", run.stderr)
        rows, columns, footer = parse_table(run.stderr)
        self.assertLessEqual(len(rows), 10)
        self.assertIn("CUDA total", columns)
        totals = [parse_time_ns(r["CUDA total"]) for r in rows.values()]
        self.assertEqual(totals, sorted(totals, reverse=True))
        self.assertEqual(rows[VECTOR_ADD]["# of Calls"], "3")
        self.assertEqual(parse_time_ns(rows[VECTOR_ADD]["CUDA total"]), 3 * KERNEL_NS)
        self.assertTrue(any(l.startswith("Self CUDA time total:") for l in footer), footer)
        self.assertIn(f"gpuprof report {files[0]}", run.stderr)

    def test_exit_status_is_the_programs(self):
        run = self.record("--", program("cuda_errors"))
        plain = run_program([program("cuda_errors")], self.tmp, preload=False)
        self.assertEqual(plain.returncode, 3)
        self.assertEqual(run.returncode, 3, run.stderr)
        self.assertEqual(run.stdout, plain.stdout)
        self.assertEqual(len(written_files(run.stderr)), 1, run.stderr)

    def test_command_is_found_on_path(self):
        env = {"PATH": os.path.dirname(program("vector_add")) + os.pathsep + os.environ["PATH"]}
        run = self.record("--", "vector_add", "--iterations", "1", env=env)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(written_files(run.stderr)), 1, run.stderr)

    def test_no_cuda_calls_no_file(self):
        run = self.record("--", "true")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("gpuprof: no profile was written", run.stderr)
        self.assertEqual(self.files_in(self.tmp), [])

    def test_library_found_next_to_gpuprof(self):
        # gpuprof is build/tools/gpuprof and the library build/inject/libgprof.so.
        run = self.record("--", program("vector_add"), "--iterations", "1", keep_lib=False)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(written_files(run.stderr)), 1, run.stderr)

    def test_missing_library(self):
        run = self.record("--", program("vector_add"), env={"GPROF_LIB": "/nonexistent/lib.so"})
        self.assertEqual(run.returncode, 2)
        self.assertIn("cannot find libgprof.so: GPROF_LIB=/nonexistent/lib.so", run.stderr)
        self.assertEqual(run.stdout, "", "the command did not run")


class OutputPattern(RecordCase):
    def test_absolute_directory(self):
        out = os.path.join(self.tmp, "out")
        os.mkdir(out)
        run = self.record("-o", os.path.join(out, "x-%p.gprof"), "--", program("vector_add"),
                          "--iterations", "1", cwd="/")
        self.assertEqual(run.returncode, 0, run.stderr)
        files = written_files(run.stderr)
        self.assertEqual(len(files), 1, run.stderr)
        self.assertRegex(files[0], "^" + re.escape(out) + r"/x-\d+\.gprof$")
        self.assertTrue(os.path.isfile(files[0]))

    def test_relative_pattern_with_directives(self):
        os.mkdir(os.path.join(self.tmp, "runs"))
        run = self.record("-o", "runs/r%r-%q{JOB}-%h-%p.gprof", "--", program("vector_add"),
                          "--iterations", "1", env={"RANK": "2", "JOB": "abc"})
        self.assertEqual(run.returncode, 0, run.stderr)
        files = written_files(run.stderr)
        self.assertEqual(len(files), 1, run.stderr)
        self.assertRegex(files[0], r"^runs/r2-abc-[^/]+-\d+\.gprof$")
        # The program was given the pattern anchored where gpuprof ran.
        info = gpuprof("info", os.path.join(self.tmp, files[0])).stdout
        self.assertIn("output=" + os.path.join(self.tmp, "runs/r%r-%q{JOB}-%h-%p.gprof"), info)

    def test_missing_directories_are_created(self):
        # Before: the shim could not create runs/x.gprof, nothing was recorded, exit 0.
        run = self.record("-o", "runs/deep/%p.gprof", "--", program("vector_add"),
                          "--iterations", "1")
        self.assertEqual(run.returncode, 0, run.stderr)
        files = written_files(run.stderr)
        self.assertEqual(len(files), 1, run.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, files[0])))
        # Up to the first directory named by a directive: per-host directories below it are
        # the process's to make, so this run records nothing and says so.
        run = self.record("-o", "jobs/%h/x.gprof", "--", program("vector_add"),
                          "--iterations", "1")
        self.assertTrue(os.path.isdir(os.path.join(self.tmp, "jobs")))
        self.assertIn("no profile was written", run.stderr)
        # %% is a '%' in a directory name, not a directive.
        run = self.record("-o", "pct%%dir/x.gprof", "--", program("vector_add"),
                          "--iterations", "1")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, "pct%dir", "x.gprof")),
                        run.stderr)
        # A directory that cannot be made: an error before the program runs.
        blocker = os.path.join(self.tmp, "file")
        open(blocker, "w").close()
        run = self.record("-o", os.path.join(blocker, "x.gprof"), "--", program("vector_add"))
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn("cannot create the output directory", run.stderr)
        self.assertEqual(run.stdout, "")

    def test_older_files_are_not_listed(self):
        for name in ("gprof-1.gprof", "gprof-2.gprof.1"):
            with open(os.path.join(self.tmp, name), "w") as f:
                f.write("old")
        run = self.record("--", program("vector_add"), "--iterations", "1")
        self.assertEqual(run.returncode, 0, run.stderr)
        files = written_files(run.stderr)
        self.assertEqual(len(files), 1, run.stderr)
        self.assertNotIn(files[0], ("gprof-1.gprof", "gprof-2.gprof.1"))

    def test_existing_name_gets_a_suffix_and_is_listed(self):
        with open(os.path.join(self.tmp, "fixed.gprof"), "w") as f:
            f.write("old")
        run = self.record("-o", "fixed.gprof", "--", program("vector_add"), "--iterations", "1")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(written_files(run.stderr), ["fixed.gprof.1"])

    def test_bad_patterns_are_usage_errors(self):
        for pattern, message in (("x-%z.gprof", "unknown directive '%z'"),
                                 ("x-%q{.gprof", "%q must be followed by {VARIABLE}"),
                                 ("x-%", "lone '%'"), ("dir/", "must end in a file name")):
            run = self.record("-o", pattern, "--", program("vector_add"))
            self.assertEqual(run.returncode, 2, pattern)
            self.assertIn(message, run.stderr)
            self.assertEqual(run.stdout, "")

    def test_gprof_output_from_the_environment(self):
        run = self.record("--", program("vector_add"), "--iterations", "1",
                          env={"GPROF_OUTPUT": "env-%p.gprof"})
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertRegex(written_files(run.stderr)[0], r"^env-\d+\.gprof$")


class Children(RecordCase):
    def test_each_process_gets_its_file_by_default(self):
        run = self.record("--", program("fork_exec"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, "fork_exec: child done\n"
                                     "fork_exec: parent done, child exited 0\n")
        files = written_files(run.stderr)
        self.assertEqual(len(files), 2, run.stderr)
        per_file = sorted((counts(dump(os.path.join(self.tmp, f))) for f in files),
                          key=lambda c: c["cudaLaunchKernel"])
        self.assertEqual(per_file[0], {"cudaMalloc": 2, "cudaFree": 2})
        self.assertEqual(per_file[1], {"cudaMalloc": 1, "cudaLaunchKernel": 1,
                                       "cudaDeviceSynchronize": 1, "cudaFree": 1})

    def test_fork_without_exec_follows_by_default(self):
        run = self.record("--follow-children", "--", program("fork_child"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(written_files(run.stderr)), 2, run.stderr)

    def test_shell_pipeline_one_file_per_cuda_process(self):
        vector_add = program("vector_add")
        run = self.record("--", "sh", "-c",
                          f"{vector_add} --iterations 1 & {vector_add} --iterations 2; wait")
        self.assertEqual(run.returncode, 0, run.stderr)
        files = written_files(run.stderr)
        self.assertEqual(len(files), 2, run.stderr)  # sh itself made no CUDA call
        launches = sorted(counts(dump(os.path.join(self.tmp, f)))["cudaLaunchKernel"]
                          for f in files)
        self.assertEqual(launches, [1, 2])

    def test_no_children_records_only_the_command(self):
        run = self.record("--no-children", "--", program("fork_exec"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, "fork_exec: child done\n"
                                     "fork_exec: parent done, child exited 0\n")
        files = written_files(run.stderr)
        self.assertEqual(len(files), 1, run.stderr)
        self.assertEqual(counts(dump(os.path.join(self.tmp, files[0]))),
                         {"cudaMalloc": 1, "cudaLaunchKernel": 1, "cudaDeviceSynchronize": 1,
                          "cudaFree": 1})

    def test_no_children_and_fork_without_exec(self):
        run = self.record("--no-children", "--", program("fork_child"))
        self.assertEqual(run.returncode, 0, run.stderr)
        files = written_files(run.stderr)
        self.assertEqual(len(files), 1, run.stderr)
        self.assertEqual(counts(dump(os.path.join(self.tmp, files[0])))["cudaMemset"], 2)

    def test_no_children_through_a_shell_records_nothing_below_it(self):
        run = self.record("--no-children", "--", "sh", "-c",
                          f"{program('vector_add')} --iterations 1")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(written_files(run.stderr), [])

    def test_environment_of_the_command(self):
        script = ('echo "$LD_PRELOAD|$GPROF_OUTPUT|$GPROF_FORK|$CUDA_INJECTION64_PATH|'
                  '$NVTX_INJECTION64_PATH|$GPROF_ONLY_PID|$$|$GPROF_CAPTURE|$GPROF_SKIP_STEPS|'
                  '$GPROF_STEPS|$GPROF_DELAY|$GPROF_DURATION"')
        lib = os.path.realpath(LIBGPROF)
        run = self.record("--", "sh", "-c", script, env={"LD_PRELOAD": "libm.so.6"})
        fields = run.stdout.strip().split("|")
        self.assertEqual(fields[:6], [lib + ":libm.so.6",
                                      os.path.join(self.tmp, "gprof-%p.gprof"), "follow", lib,
                                      lib, ""])
        run = self.record("--no-children", "--capture", "nvtx:forward@train", "--skip-steps",
                          "2", "--steps", "3", "--delay", "0.5", "--duration", "10", "--",
                          "sh", "-c", script)
        fields = run.stdout.strip().split("|")
        self.assertEqual(fields[0], lib)
        self.assertEqual(fields[2], "stop")
        self.assertEqual(fields[5], fields[6], "GPROF_ONLY_PID is the command's own pid")
        self.assertEqual(fields[7:], ["nvtx:forward@train", "2", "3", "0.5", "10"])

    def test_injection_owned_by_another_tool(self):
        run = self.record("--", program("vector_add"), "--iterations", "1",
                          env={"CUDA_INJECTION64_PATH": "/opt/other/libtool.so"})
        self.assertEqual(run.returncode, 0, run.stderr)
        notes = [l for l in run.stderr.splitlines() if l.startswith("gpuprof: note:")]
        self.assertEqual(len(notes), 1, run.stderr)
        self.assertIn("CUDA_INJECTION64_PATH=/opt/other/libtool.so (so no GPU activity)",
                      notes[0])
        self.assertNotIn("NVTX_INJECTION64_PATH", notes[0])


class CaptureOptions(RecordCase):
    """The options become the shim's GPROF_* settings; train_loop has 5 launches per step."""

    def launches(self, *args, program_args=()):
        run = self.record(*args, "--", program("train_loop"), *program_args)
        self.assertEqual(run.returncode, 0, run.stderr)
        files = written_files(run.stderr)
        self.assertEqual(len(files), 1, run.stderr)
        return counts(dump(os.path.join(self.tmp, files[0])))["cudaLaunchKernel"]

    def test_steps(self):
        self.assertEqual(self.launches("--skip-steps", "2", "--steps", "3"), 15)

    def test_profiler_api(self):
        self.assertEqual(self.launches("--capture", "cudaProfilerApi",
                                       program_args=["--profiler-window", "1:3"]), 10)

    def test_nvtx_range(self):
        self.assertEqual(self.launches("--capture", "nvtx:forward"), 12)

    def test_delay_past_the_end_records_nothing(self):
        run = self.record("--delay", "300", "--", program("train_loop"))
        self.assertEqual(run.returncode, 0, run.stderr)
        # The timer runs from CUDA's initialization, so the file exists, empty.
        files = written_files(run.stderr)
        self.assertEqual(len(files), 1, run.stderr)
        self.assertEqual(dump(os.path.join(self.tmp, files[0])), [])
        self.assertIn("No records.", run.stderr)


class Signals(RecordCase):
    def test_sigterm_reaches_the_program(self):
        proc = subprocess.Popen(
            [GPUPROF, "record", "-o", os.path.join(self.tmp, "k-%p.gprof"), "--",
             program("launch_loop"), "1000000000"],
            env=clean_env(), cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        try:
            # Wait for the first frames on disk, so that the file has something to read.
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                files = self.files_in(self.tmp)
                if files and os.path.getsize(os.path.join(self.tmp, files[0])) > 4096:
                    break
                time.sleep(0.05)
            else:
                self.fail("no file appeared")
            pid = int(re.search(r"k-(\d+)\.gprof", files[0]).group(1))
            proc.send_signal(signal.SIGTERM)
            stdout, stderr = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertEqual(proc.returncode, 128 + signal.SIGTERM, stderr)
        self.assertIn("was killed by signal 15", stderr)
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)  # gone, and reaped by gpuprof
        files = written_files(stderr)
        self.assertEqual(files, [os.path.join(self.tmp, f"k-{pid}.gprof")], stderr)
        info = gpuprof("info", files[0]).stdout
        self.assertIn("incomplete", info)
        self.assertGreater(counts(dump(files[0]))["cudaLaunchKernel"], 0)

    # Counts the SIGINTs and SIGUSR1s it gets until shortly after the first SIGUSR1 (whatever
    # gpuprof sent before that has arrived by then), then exits 7.
    COUNTER = r"""
import signal, sys, time
n = {"SIGINT": 0, "SIGUSR1": 0}
def count(sig, frame):
    n[signal.Signals(sig).name] += 1
signal.signal(signal.SIGINT, count)
signal.signal(signal.SIGUSR1, count)
print("ready", flush=True)
deadline = time.time() + 60
while time.time() < deadline and not n["SIGUSR1"]:
    time.sleep(0.02)
time.sleep(0.2)
print("SIGINT=%d SIGUSR1=%d" % (n["SIGINT"], n["SIGUSR1"]), flush=True)
sys.exit(7)
"""

    def test_terminal_signals_arrive_once_and_kill_signals_are_forwarded(self):
        """Ctrl-C on the terminal reaches the whole foreground process group: the program gets
        it from the terminal, and gpuprof must not send it a second time. A signal sent to
        gpuprof alone is passed on.

        Two SIGINTs that arrive together merge into one pending signal, which would hide a
        second delivery; so gpuprof is stopped while Ctrl-C is typed, and only continued once
        the program has counted the terminal's SIGINT: a forwarded copy would then count too."""
        env = clean_env()
        pid, fd = pty.fork()
        if pid == 0:  # the session leader on a new terminal: gpuprof and its child
            try:
                os.execve(GPUPROF, [GPUPROF, "record", "--", sys.executable, "-c",
                                    self.COUNTER], env)
            finally:
                os._exit(127)
        out = b""
        status = None
        try:
            deadline = time.monotonic() + 60
            while b"ready" not in out and time.monotonic() < deadline:
                out += os.read(fd, 4096)
            os.kill(pid, signal.SIGSTOP)
            _, stopped = os.waitpid(pid, os.WUNTRACED)
            self.assertTrue(os.WIFSTOPPED(stopped))
            os.write(fd, b"\x03")  # Ctrl-C: SIGINT to the foreground process group
            time.sleep(0.3)
            os.kill(pid, signal.SIGCONT)
            time.sleep(0.3)
            os.kill(pid, signal.SIGUSR1)  # to gpuprof alone
            while True:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # EIO: the terminal's last user is gone
                    break
                if not chunk:
                    break
                out += chunk
            _, status = os.waitpid(pid, 0)
        finally:
            if status is None:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            os.close(fd)
        text = out.decode(errors="replace")
        self.assertIn("SIGINT=1 SIGUSR1=1", text)
        self.assertEqual(os.waitstatus_to_exitcode(status), 7, text)


class Usage(RecordCase):
    def test_usage_errors_exit_2(self):
        cases = [
            ((), "no command to run"),
            (("--",), "no command after '--'"),
            ((program("vector_add"),), "put '--' before the command"),
            (("--bogus", "--", "true"), "unknown option '--bogus'"),
            (("-o", "--", "true"), "-o: needs a PATTERN"),
            (("--capture", "sometimes", "--", "true"), "is not a capture window"),
            (("--delay", "-1", "--", "true"), "is not a number of seconds"),
            (("--steps", "x", "--", "true"), "--steps"),
            (("--no-children", "--follow-children", "--", "true"), "excludes"),
        ]
        for args, message in cases:
            run = self.record(*args)
            self.assertEqual(run.returncode, 2, (args, run.stderr))
            self.assertIn(message, run.stderr, args)
            self.assertEqual(run.stdout, "", args)

    def test_unknown_command_exits_127(self):
        run = self.record("--", "gprof-no-such-command", "arg")
        self.assertEqual(run.returncode, 127)
        self.assertIn("gprof-no-such-command: command not found", run.stderr)
        self.assertNotIn("gpuprof: wrote", run.stderr)

    def test_not_executable_exits_126(self):
        path = os.path.join(self.tmp, "not-executable")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n")
        run = self.record("--", path)
        self.assertEqual(run.returncode, 126)
        self.assertIn("Permission denied", run.stderr)

    def test_help_names_the_options(self):
        out = gpuprof("record", "--help").stdout
        for option in ("-o,--output", "--capture", "--delay", "--duration", "--skip-steps",
                       "--steps", "--follow-children", "--no-children"):
            self.assertIn(option, out)


if __name__ == "__main__":
    unittest.main()
