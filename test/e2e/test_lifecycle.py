"""Lifecycle inside the host (docs/architecture.md §2.6-2.7): fork, exit flush, killed
processes, bad configuration, unwritable output, full rings, symbols."""

import collections
import json
import os
import re
import signal
import subprocess
import time
import unittest

from gprof_e2e import (BUILD, E2ETestCase, FAKE_LIBRARY_PATH, LIBGPROF, SOURCE, dump, gpuprof,
                       program, run_program)

CUDA_INCLUDE = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include")


def dump_gpu(path):
    out = gpuprof("dump", "--records", "gpu", path).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def counts(records):
    return collections.Counter(r["name"] for r in records)


class Fork(E2ETestCase):
    def test_child_gets_its_own_file(self):
        run = self.profile([program("fork_child")])
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(run.files), 2, run.files)
        per_file = {f: counts(dump(f)) for f in run.files}
        parent = [f for f, c in per_file.items() if c["cudaMemset"]]
        child = [f for f, c in per_file.items() if not c["cudaMemset"]]
        self.assertEqual(len(parent), 1)
        self.assertEqual(len(child), 1)
        self.assertEqual(per_file[parent[0]], {"cudaMalloc": 1, "cudaLaunchKernel": 1,
                                               "cudaDeviceSynchronize": 1, "cudaMemset": 2,
                                               "cudaFree": 1})
        self.assertEqual(per_file[child[0]], {"cudaMalloc": 5, "cudaFree": 5})
        for f in run.files:
            self.assertNotIn("incomplete", gpuprof("info", f).stdout)

    def test_stop_policy_leaves_only_the_parent_file(self):
        run = self.profile([program("fork_child")], env={"GPROF_FORK": "stop"})
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(run.files), 1)
        self.assertEqual(counts(dump(run.files[0]))["cudaMemset"], 2)
        self.assertEqual(counts(dump(run.files[0]))["cudaMalloc"], 1)


class HostileHosts(E2ETestCase):
    """Programs that take the descriptors away from under the shim (docs/architecture.md §2.7)."""
    CALLS = 20

    def check_every_call_recorded(self, mode):
        args = [program("hostile_fds"), mode, "--calls", str(self.CALLS)]
        run = self.profile(args)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertSameBehaviour(args, profiled=run)
        self.assertEqual(len(run.files), 1)
        self.assertEqual(counts(dump(run.files[0])), {
            "cudaMalloc": 2 * self.CALLS, "cudaLaunchKernel": 2 * self.CALLS,
            "cudaFree": 2 * self.CALLS, "cudaDeviceSynchronize": 2})
        info = gpuprof("info", run.files[0]).stdout
        self.assertRegex(info, r"Integrity:\s+complete")
        self.assertRegex(info, r"Losses:\s+none")
        self.assertRegex(info, r"Output reopened:\s+once")
        kernels = [g for g in dump_gpu(run.files[0]) if g["kind"] == "kernel"]
        self.assertEqual(len(kernels), 2 * self.CALLS)

    def test_program_closes_every_descriptor(self):
        self.check_every_call_recorded("close")

    def test_program_dup2s_dev_null_over_every_descriptor(self):
        # Before: the records went to /dev/null without a word.
        self.check_every_call_recorded("dup2")

    def test_file_size_limit_stops_recording_not_the_program(self):
        # SIGXFSZ would kill the program; the writer blocks it and gets EFBIG instead.
        args = ["bash", "-c", 'ulimit -f 4 && exec "$0" "$@"', program("vector_add"),
                "--iterations", "2000"]
        run = self.profile(args)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertSameBehaviour(args, profiled=run)
        self.assertIn("File too large", run.stderr)
        self.assertLessEqual(os.path.getsize(run.files[0]), 4096)


class ExitPaths(E2ETestCase):
    """Every way a program ends leaves a complete file with every call and kernel, except _exit,
    which runs no handler at all."""
    K = 10

    def ended(self, mode):
        args = [program("exit_variants"), mode, str(self.K)]
        run = self.profile(args, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, f"exit_variants: {mode}\n")
        self.assertEqual(len(run.files), 1)
        return run.files[0]

    def check_complete(self, mode, exact=True):
        path = self.ended(mode)
        info = gpuprof("info", path).stdout
        self.assertRegex(info, r"Integrity:\s+complete")
        self.assertRegex(info, r"Losses:\s+none")
        got = counts(dump(path))
        if exact:
            self.assertEqual(got, {"cudaMalloc": 1, "cudaLaunchKernel": self.K,
                                   "cudaDeviceSynchronize": self.K})
        else:
            self.assertEqual(got["cudaLaunchKernel"], self.K)
            self.assertGreaterEqual(got["cudaDeviceSynchronize"], self.K)
        launches = {r["correlation"] for r in dump(path) if r["name"] == "cudaLaunchKernel"}
        kernels = [g for g in dump_gpu(path) if g["kind"] == "kernel"]
        self.assertEqual(len(kernels), self.K)
        self.assertTrue(all(k["correlation"] in launches for k in kernels))

    def test_main_returns(self):
        self.check_complete("return")

    def test_exit(self):
        self.check_complete("exit")

    def test_quick_exit(self):
        # Before: no at_quick_exit handler, an empty file.
        self.check_complete("quick_exit")

    def test_cuda_calls_in_a_static_destructor_are_recorded(self):
        # After the runtime's teardown (test/fakes/cudart/injection.cc): the calls fail, and are
        # recorded with their error, since gprof's exit handler runs after every destructor.
        path = self.ended("destructor")
        info = gpuprof("info", path).stdout
        self.assertRegex(info, r"Integrity:\s+complete")
        self.assertRegex(info, r"Losses:\s+none")
        calls = dump(path)
        self.assertEqual(counts(calls), {"cudaMalloc": 1, "cudaLaunchKernel": self.K + 1,
                                         "cudaDeviceSynchronize": self.K + 1})
        cudart_unloading = 4
        self.assertEqual([c["result"] for c in calls[-2:]], [cudart_unloading] * 2)
        self.assertTrue(all(c["result"] == 0 for c in calls[:-2]))
        kernels = [g for g in dump_gpu(path) if g["kind"] == "kernel"]
        self.assertEqual(len(kernels), self.K)

    def test_exit_from_another_thread_while_main_calls_cuda(self):
        # Main keeps synchronizing while the process ends: the final drain is bounded, and the
        # file is complete.
        self.check_complete("thread", exact=False)

    def test_underscore_exit_runs_no_handler(self):
        # No handler runs: the file holds what the writer had written, possibly nothing (or the
        # writer had not even created it); the tools say so and the program is unchanged.
        args = [program("exit_variants"), "_exit", str(self.K)]
        run = self.profile(args, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, "exit_variants: _exit\n")
        self.assertLessEqual(len(run.files), 1)
        if not run.files:
            return
        path = run.files[0]
        info = gpuprof("info", path, check=False)
        if os.path.getsize(path) == 0:
            self.assertNotEqual(info.returncode, 0)
            self.assertIn("empty file", info.stderr)
        else:
            self.assertIn("incomplete", info.stdout + info.stderr)


class Configuration(E2ETestCase):
    def test_bad_values_warn_once_and_change_nothing(self):
        args = [program("vector_add"), "--iterations", "2"]
        run = self.profile(args, env={"GPROF_MAX_MEMORY": "lots", "GPROF_ON_FULL": "x",
                                      "GPROF_BUFFER_SIZE": "2M"})
        warnings = [l for l in run.stderr.splitlines() if l.startswith("gprof:")]
        self.assertEqual(len(warnings), 3, run.stderr)
        self.assertIn("GPROF_MAX_MEMORY='lots'", warnings[0])
        self.assertIn("GPROF_ON_FULL='x'", warnings[1])
        self.assertIn("GPROF_BUFFER_SIZE is no longer used", warnings[2])
        self.assertSameBehaviour(args, profiled=run)
        self.assertEqual(counts(dump(run.files[0]))["cudaLaunchKernel"], 2)

    def test_unwritable_output_directory(self):
        args = [program("vector_add"), "--iterations", "2"]
        run = self.profile(args, env={"GPROF_OUTPUT": "/nonexistent-gprof-dir/x-%p.gprof"})
        warnings = [l for l in run.stderr.splitlines() if l.startswith("gprof:")]
        self.assertEqual(len(warnings), 1, run.stderr)
        self.assertIn("/nonexistent-gprof-dir/x-", warnings[0])
        self.assertSameBehaviour(args, profiled=run)

    def test_disabled(self):
        run = self.profile([program("vector_add"), "--iterations", "1"],
                           env={"GPROF_ENABLED": "0"})
        self.assertEqual(run.returncode, 0)
        self.assertEqual(run.files, [])

    def test_output_pattern_and_mode(self):
        run = self.profile([program("vector_add"), "--iterations", "1"],
                           env={"GPROF_OUTPUT": os.path.join(self.tmp, "r%r-%q{JOB}-%p.gprof"),
                                "RANK": "5", "JOB": "abc", "GPROF_FILE_MODE": "0644"})
        self.assertEqual(len(run.files), 1)
        self.assertRegex(os.path.basename(run.files[0]), r"^r5-abc-\d+\.gprof$")
        self.assertEqual(os.stat(run.files[0]).st_mode & 0o777, 0o644)
        self.assertRegex(gpuprof("info", run.files[0]).stdout, r"Rank:\s+5\n")

    def test_existing_file_is_never_truncated(self):
        target = os.path.join(self.tmp, "fixed.gprof")
        with open(target, "w") as f:
            f.write("keep me")
        run = self.profile([program("vector_add"), "--iterations", "1"],
                           env={"GPROF_OUTPUT": target})
        self.assertEqual(run.returncode, 0)
        with open(target) as f:
            self.assertEqual(f.read(), "keep me")
        self.assertTrue(os.path.exists(target + ".1"))
        self.assertEqual(counts(dump(target + ".1"))["cudaLaunchKernel"], 1)


class Losses(E2ETestCase):
    def test_full_queues_drop_and_count_exactly(self):
        launches = 400000
        # 1M holds ~13,000 launch records; a writer held 50 ms before each
        # pass (a slow disk) falls behind a loop that makes them faster.
        run = self.profile([program("launch_loop"), str(launches)],
                           env={"GPROF_MAX_MEMORY": "1M", "GPROF_ON_FULL": "drop",
                                "GPROF_WRITER_DELAY_MS": "50"})
        self.assertEqual(run.returncode, 0, run.stderr)
        info = gpuprof("info", run.files[0]).stdout
        lost = int(re.search(r"ring_full\D+(\d+)", info).group(1))
        self.assertGreater(lost, 0, info)
        recorded = len(dump(run.files[0]))
        # Every call is either in the file or counted as lost.
        self.assertEqual(recorded + lost, launches + 1)
        self.assertTrue(any("lost" in l for l in run.stderr.splitlines()
                            if l.startswith("gprof:")), run.stderr)
        report = gpuprof("report", run.files[0]).stdout
        self.assertIn("ring_full", report)


class Killed(E2ETestCase):
    def test_killed_process_leaves_a_readable_incomplete_file(self):
        env = dict(os.environ, LD_PRELOAD=LIBGPROF, LD_LIBRARY_PATH=FAKE_LIBRARY_PATH,
                   GPROF_OUTPUT=os.path.join(self.tmp, "k-%p.gprof"),
                   GPROF_FLUSH_INTERVAL_MS="20")
        proc = subprocess.Popen([program("launch_loop"), "1000000000"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        files = [os.path.join(self.tmp, f) for f in os.listdir(self.tmp)]
        self.assertEqual(len(files), 1)
        info = gpuprof("info", files[0]).stdout
        self.assertIn("incomplete", info)
        report = gpuprof("report", files[0])
        self.assertIn("incomplete", report.stderr)
        self.assertIn("cudaLaunchKernel", report.stdout)
        self.assertGreater(counts(dump(files[0]))["cudaLaunchKernel"], 100)


def exported_symbols():
    """(name, version) of every symbol libgprof.so exports; version nodes left out."""
    out = subprocess.run(["nm", "-D", "--defined-only", LIBGPROF], capture_output=True,
                         text=True, check=True).stdout
    exported = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 3 or fields[1] == "A":  # A: a version definition
            continue
        name, _, version = fields[2].replace("@@", "@").partition("@")
        exported.add((name, version))
    return exported


def table_rows():
    with open(os.path.join(SOURCE, "formats", "api_table.h")) as f:
        table = f.read()
    return re.findall(r'X\((\w+), (\d+), "(\w+)", "(\w+)", (\w+), ([\w |]+), (runtime|driver), '
                      r'(\w+), (\w+), (\(?[\w<>]+\)?), (v12_v13|v13)\)', table)


class Symbols(unittest.TestCase):
    def test_nothing_of_the_implementation_is_exported(self):
        demangled = subprocess.run(["nm", "-DC", LIBGPROF], capture_output=True, text=True,
                                   check=True).stdout
        for namespace in ("std::", "google::", "fmt::", "spdlog::", "gprof::"):
            defined = [l for l in demangled.splitlines() if namespace in l and " U " not in l]
            self.assertEqual(defined, [], namespace)
        self.assertFalse([s for s in exported_symbols() if s[0].startswith("gprof")])

    def test_every_hook_has_an_api_id_and_a_callback_id(self):
        # formats/api_table.h read independently of the build's generator: every row has a
        # unique id and symbol and a CUPTI callback id that CUPTI's headers define; libgprof.so
        # exports exactly the runtime rows' hooks, per libcudart version node (inject/hook_name.h),
        # and the entry points.
        rows = table_rows()
        self.assertGreater(len(rows), 80)
        ids = [int(r[1]) for r in rows]
        symbols = [r[2] for r in rows]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(len(symbols), len(set(symbols)))
        cupti = ""
        for header in ("cupti_runtime_cbid.h", "cupti_driver_cbid.h"):
            with open(os.path.join(CUDA_INCLUDE, header)) as f:
                cupti += f.read()
        for name, _, symbol, _, _, _, domain, cbid, _, _, _ in rows:
            prefix = "CUPTI_RUNTIME_TRACE_CBID_" if domain == "runtime" else "CUPTI_DRIVER_TRACE_CBID_"
            self.assertRegex(cupti, rf"\b{prefix}{cbid}\b", name)
        expected = {("InitializeInjection", "GPROF_1"), ("InitializeInjectionNvtx2", "GPROF_1"),
                    ("dlclose", "GLIBC_2.2.5"), ("dlclose", "GLIBC_2.34")}
        for name in ("__cudaRegisterFunction", "__cudaGetKernel"):
            expected |= {(name, "libcudart.so.12"), (name, "libcudart.so.13")}
        # another tool's CUPTI takeover is seen through these (inject/hooks_cupti.cc)
        for name in ("cuptiActivityRegisterCallbacks", "cuptiActivityRegisterTimestampCallback",
                     "cuptiActivityEnable", "cuptiActivityDisable", "cuptiFinalize",
                     "cuptiSubscribe", "cuptiSubscribe_v2", "cuptiUnsubscribe"):
            expected |= {(name, "libcupti.so.12"), (name, "libcupti.so.13")}
        for row in rows:
            if row[6] != "runtime":
                continue
            expected.add((row[2], "libcudart.so.13"))
            if row[10] == "v12_v13":
                expected.add((row[2], "libcudart.so.12"))
        self.assertEqual(exported_symbols(), expected)

    def test_initialized_data_stays_small(self):
        # Every process maps the library: one non-zero default in ProcessState's tables once moved
        # its 38 MB from .bss (zero pages, mapped when first touched) into .data, a 42 MB file
        # (issue 30). Relocated pointers count as non-zero too (a `const char* = ""` member).
        sections = subprocess.run(["readelf", "-S", "-W", LIBGPROF], capture_output=True,
                                  text=True, check=True).stdout
        sizes = {}
        for line in sections.splitlines():
            fields = line.replace("[ ", "[").split()
            if len(fields) > 5 and fields[1].startswith("."):
                sizes[fields[1]] = int(fields[5], 16)
        self.assertIn(".data", sizes)
        self.assertLess(sizes[".data"], 64 << 10, sizes)
        self.assertGreater(sizes.get(".bss", 0), 16 << 20, sizes)


if __name__ == "__main__":
    unittest.main()
