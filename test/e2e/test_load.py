"""Capture under load (issue 12, docs/architecture.md §2.1 and §2.2): bursts from several threads,
any number of threads, PyTorch emit_nvtx names, and the memory cap with both policies. Every
assertion is an exact count from the real CLI; the program is test/programs/burst.cu (its header
comment is the contract: per thread, one "thread" range around LAUNCHES launches and PAIRS push/pop
pairs, then one cudaStreamSynchronize)."""

import csv
import io
import json
import os
import re
import unittest

from gprof_e2e import E2ETestCase, dump, gpuprof, parse_table, program

# The fake device's kernels take this long; short, so that a burst is not timed by the fake GPU.
FAST_KERNELS = {"GPROF_FAKE_KERNEL_NS": "100"}


def report_json(path, *args):
    return json.loads(gpuprof("report", "--format", "json", "--limit", "0", *args, path).stdout)


def rows_by_name(doc):
    return {row["name"]: row for row in doc["rows"]}


def losses(info):
    return re.search(r"^Losses:\s+(.*)$", info, re.M).group(1)


class Burst(E2ETestCase):
    def burst(self, threads, launches, pairs, *extra, env=None):
        run = self.profile([program("burst"), str(threads), str(launches), str(pairs), *extra],
                           env=dict(FAST_KERNELS, **(env or {})), timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.splitlines()[0],
                         f"threads={threads} launches={threads * launches} "
                         f"pairs={threads * pairs} errors=0")
        self.assertEqual(len(run.files), 1, run.files)
        return run

    def assert_everything_recorded(self, path, threads, launches, pairs, pair_name="pair",
                                   views=True):
        info = gpuprof("info", path).stdout
        self.assertEqual(losses(info), "none", info)
        self.assertRegex(info, rf"Records:\s+{threads * launches + threads} API calls? on "
                               rf"{threads} threads?, {threads * launches} kernel launches")
        self.assertRegex(info, rf"GPU records:\s+\d+ \({threads * launches} kernels,")
        # Exactly the pairs, and nothing after them (no unbalanced pops, none open at exit).
        self.assertRegex(info, rf"Ranges:\s+{threads * (pairs + 1)} push/pop, 0 start/end, "
                               rf"0 marks\n")
        if not views:
            return info
        doc = report_json(path)
        ranges = doc["files"][0]["ranges"]
        self.assertEqual((ranges["unbalanced_pops"], ranges["open_at_exit"]), (0, 0), ranges)
        rows = rows_by_name(doc)
        self.assertEqual(rows["thread"]["count"], threads)
        if pairs:
            self.assertEqual(rows[pair_name]["count"], threads * pairs)
        self.assertNotIn("<unnamed range>", rows)
        if launches:
            self.assertEqual(rows["cudaLaunchKernel"]["count"], threads * launches)
            self.assertEqual(rows["empty_kernel()"]["count"], threads * launches)
        # Each thread's launches sit inside its "thread" range: nothing moved to another parent.
        inside = rows_by_name(report_json(path, "--range", "thread"))
        if launches:
            self.assertEqual(inside["cudaLaunchKernel"]["count"], threads * launches)
        return info

    def test_burst_at_default_settings_loses_nothing(self):
        # The burst: 4 threads x (250,000 launches, then 250,000 NVTX pairs).
        run = self.burst(4, 250000, 250000)
        # Nothing lost; the program may have been held at the cap (a loaded 2-core machine
        # starves the writer), which the exit warning then says.
        warnings = [l for l in run.stderr.splitlines() if l.startswith("gprof:")]
        self.assertFalse([l for l in warnings if "held" not in l], run.stderr)
        info = self.assert_everything_recorded(run.files[0], 4, 250000, 250000)
        # The default cap, and the memory the queues took under it.
        # 192 MB: the default 256 MB less the quarter CUPTI's buffers may grow to.
        self.assertRegex(info, r"Queue memory:\s+peak [0-9.]+ MB of 192.00 MB \(GPROF_MAX_MEMORY\)")

    def test_128_threads(self):
        run = self.burst(128, 2000, 2000)
        self.assert_everything_recorded(run.files[0], 128, 2000, 2000)

    def test_many_launching_threads_share_cupti_buffers(self):
        # CUPTI 13 fills a buffer per thread that makes records unless told otherwise
        # (cupti_activity.h, CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, default 1; the fake
        # does the same): 96 launching threads would hold 96 buffers, past the pool's cap (16
        # buffers of 1 MB under GPROF_MAX_MEMORY=64M), and drop records. gprof asks for the
        # process-wide buffers instead.
        run = self.burst(96, 50, 0, env={"GPROF_MAX_MEMORY": "64M", "GPROF_ON_FULL": "drop"})
        info = self.assert_everything_recorded(run.files[0], 96, 50, 0)
        pool = re.search(r"Buffer pool:\s+(\d+) × 1048576 bytes", info)
        self.assertIsNotNone(pool, info)
        self.assertLessEqual(int(pool[1]), 16)

    def test_per_thread_buffers_past_the_pool_cap_never_stall(self):
        # GPROF_CUPTI_PER_THREAD_BUFFERS=1: each of 128 launching threads holds a buffer of its
        # own, more than the pool's cap (48 buffers of 1 MB under the default GPROF_MAX_MEMORY).
        # A request at the cap waited for the writer, which skips its flush while one waits, so
        # no buffer came back: this run stalled until killed (67,956 of 256,000 kernels at 100 s).
        # Past the cap now, up to 256 buffers.
        run = self.profile([program("burst"), "128", "2000", "0"], timeout=60,
                           env=dict(FAST_KERNELS, GPROF_CUPTI_PER_THREAD_BUFFERS="1"))
        self.assertEqual(run.returncode, 0, run.stderr)
        info = self.assert_everything_recorded(run.files[0], 128, 2000, 0, views=False)
        pool = re.search(r"Buffer pool:\s+(\d+) × 1048576 bytes", info)
        self.assertIsNotNone(pool, info)
        self.assertGreater(int(pool[1]), 48, info)

    def test_a_backlog_of_many_threads_is_written_in_frames_the_reader_takes(self):
        # A slow writer pass finds 160 queues with 65,536 records or more each: one frame of
        # all of them would pass the reader's 64 MiB frame limit (it was lost whole,
        # encode_error=10612057 in the run that found it).
        # The final drain of that backlog is not what is tested: on a loaded machine it outlasts
        # the default flush timeout.
        run = self.burst(160, 1000, 40000,
                         env={"GPROF_WRITER_DELAY_MS": "1000", "GPROF_FLUSH_TIMEOUT_MS": "60000"})
        info = self.assert_everything_recorded(run.files[0], 160, 1000, 40000, views=False)
        self.assertRegex(info, r"Integrity:\s+complete\n")
        self.assertRegex(info, r"Frames:\s+\d+ good, 0 bad")

    def test_clock_gettime_timestamps(self):
        run = self.burst(2, 5000, 5000, env={"GPROF_TSC": "0"})
        info = self.assert_everything_recorded(run.files[0], 2, 5000, 5000)
        self.assertRegex(info, r"Timestamps:\s+clock_gettime\n")

    def test_tsc_timestamps_are_calibrated(self):
        run = self.burst(1, 2000, 2000)
        info = gpuprof("info", run.files[0]).stdout
        if "Timestamps:       clock_gettime" in info:
            self.skipTest("this machine's TSC is not invariant")
        m = re.search(r"Timestamps:\s+TSC at ([0-9.]+) GHz, (\d+) calibration pairs?, "
                      r"uncertainty <= (\d+)ns", info)
        self.assertIsNotNone(m, info)
        self.assertGreater(float(m.group(1)), 0.1)
        self.assertGreaterEqual(int(m.group(2)), 2)  # at start and at exit

    def test_emit_nvtx_names_never_fill_the_table(self):
        # 300,000 distinct messages, as torch.autograd.profiler.emit_nvtx makes them.
        run = self.burst(1, 0, 300000, "--torch-names")
        self.assertFalse([l for l in run.stderr.splitlines() if l.startswith("gprof:")],
                         run.stderr)
        self.assert_everything_recorded(run.files[0], 1, 0, 300000, pair_name="aten::add")
        info = gpuprof("info", run.files[0]).stdout
        # "thread" and one stable name: the numbers went into the records.
        self.assertRegex(info, r"Strings:.* 2 NVTX strings")
        out = gpuprof("dump", "--records", "ranges", run.files[0]).stdout.splitlines()
        ranges = [json.loads(line) for line in out]
        adds = [r for r in ranges if r["name"] == "aten::add"]
        self.assertEqual(len(adds), 300000)
        self.assertEqual([r.get("seq") for r in adds[:3]], [0, 1, 2])
        self.assertEqual([r.get("op_id") for r in adds[:3]], [None, 1, 2])  # op_id 0: none
        self.assertEqual((adds[-1]["seq"], adds[-1]["op_id"]), (299999, 299999))

    def test_emit_nvtx_ops_by_name_and_by_input_shape(self):
        # torch's key_averages() keys an op by its name, group_by_input_shape=True by name and
        # shapes, printing them in an "Input Shapes" column.
        run = self.burst(2, 0, 50, "--torch-names")
        path = run.files[0]
        rows, columns, _ = parse_table(gpuprof("report", "--view", "ranges", path).stdout)
        self.assertEqual(rows["aten::add"]["# of Calls"], "100")
        self.assertNotIn("Input Shapes", columns)
        # CSV: the table's empty cells (ranges that are no ops have no shapes) stay columns.
        out = gpuprof("report", "--view", "ranges", "--group-by", "input-shape", "--format",
                      "csv", path).stdout
        table = list(csv.DictReader(io.StringIO(out)))
        by_name = {r["Name"]: r for r in table}
        self.assertEqual(len(table), 2, table)
        self.assertEqual(by_name["aten::add"]["Input Shapes"], "[[2, 3], [2, 3]]")
        self.assertEqual(by_name["aten::add"]["# of Calls"], "100")
        self.assertEqual(by_name["thread"]["Input Shapes"], "")
        self.assertIn("Input Shapes", gpuprof("report", "--view", "ranges", "--group-by",
                                              "input-shape", path).stdout)
        ranges = [json.loads(l) for l in
                  gpuprof("dump", "--records", "ranges", path).stdout.splitlines()]
        adds = [r for r in ranges if r["name"] == "aten::add"]
        self.assertEqual(len(adds), 100)
        self.assertTrue(all(r["input_shapes"] == "[[2, 3], [2, 3]]" for r in adds))
        # By sequence number: each thread's i-th op has seq i, so 50 rows of 2 calls.
        out = gpuprof("report", "--view", "ranges", "--group-by", "seq", "--format", "csv",
                      "--limit", "0", path).stdout
        seqs = [r for r in csv.DictReader(io.StringIO(out)) if r["Name"] == "aten::add"]
        self.assertEqual(sorted(int(r["Seq"]) for r in seqs), list(range(50)))
        self.assertTrue(all(r["# of Calls"] == "2" for r in seqs))


class MemoryCap(E2ETestCase):
    """GPROF_MAX_MEMORY=1M (16 chunks) with a writer slowed by GPROF_WRITER_DELAY_MS, so that the
    queues reach the cap on any machine."""

    CAP = {"GPROF_MAX_MEMORY": "1M", "GPROF_WRITER_DELAY_MS": "20"}

    def run_burst(self, threads, launches, pairs, env):
        run = self.profile([program("burst"), str(threads), str(launches), str(pairs)],
                           env=dict(FAST_KERNELS, **self.CAP, **env), timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(len(run.files), 1, run.files)
        return run

    def test_wait_holds_the_program_and_keeps_everything(self):
        run = self.run_burst(2, 40000, 40000, {})
        info = gpuprof("info", run.files[0]).stdout
        self.assertEqual(losses(info), "none", info)
        self.assertRegex(info, r"Ranges:\s+80002 push/pop")
        self.assertRegex(info, r"Records:\s+80002 API calls on 2 threads, 80000 kernel launches")
        held = re.search(r"Held at memory cap: (\d+) times?, ", info)
        self.assertIsNotNone(held, info)
        self.assertGreater(int(held.group(1)), 0)
        self.assertRegex(info, r"Queue memory:\s+peak 1.00 MB of 1.00 MB \(GPROF_MAX_MEMORY\)")
        self.assertTrue(any(l.startswith("gprof: the program was held") for l in
                            run.stderr.splitlines()), run.stderr)
        doc = report_json(run.files[0])
        self.assertEqual(doc["files"][0]["held"]["count"], int(held.group(1)))
        self.assertTrue(any(n.startswith("The program was held") for n in doc["notes"]),
                        doc["notes"])

    def test_cupti_buffers_at_the_cap_never_wait_for_a_blocked_writer(self):
        # A thread the fake CUPTI asks for a buffer holds the fake runtime's delivery lock; the
        # writer's periodic flush needs that lock. With every buffer in use, waiting for the
        # writer to free one waited for a writer blocked on this very thread: 10 s per request,
        # about half of these runs hung. A waiter now takes a buffer past the cap while the
        # writer is inside a flush. A thread that delivers a backlog longer than even those
        # buffers hold (the writer starved on a loaded machine) then gets none at once: CUPTI
        # drops and counts those records, where each request used to wait GPROF_MAX_WAIT_MS.
        for attempt in range(3):
            run = self.profile([program("burst"), "4", "20000", "2000"], timeout=60,
                               env=dict(FAST_KERNELS, GPROF_MAX_MEMORY="1M",
                                        GPROF_CUPTI_BUFFER_SIZE="4K", GPROF_CUPTI_BUFFERS="1"))
            self.assertEqual(run.returncode, 0, run.stderr)
            info = gpuprof("info", run.files[0]).stdout
            lost = losses(info)
            dropped = re.fullmatch(r"CUPTI: cupti_dropped=(\d+)", lost)
            self.assertTrue(lost == "none" or dropped, info)
            # What CUPTI dropped may be any kind: one sync record per cudaStreamSynchronize
            # besides the 80000 kernels (CI, 2026-11-29: 66525 kernels, 2 of 4 syncs and
            # 13477 dropped).
            records = int(re.search(r"GPU records:\s+(\d+) \(", info).group(1))
            syncs = int(re.search(r"cudaStreamSynchronize\s+(\d+)", info).group(1))
            self.assertEqual(records + (int(dropped.group(1)) if dropped else 0), 80000 + syncs,
                             info)
            os.remove(run.files[0])

    def test_drop_counts_every_loss_and_never_half_a_pair(self):
        threads, launches, pairs = 2, 40000, 100000
        run = self.run_burst(threads, launches, pairs, {"GPROF_ON_FULL": "drop"})
        info = gpuprof("info", run.files[0]).stdout
        lost = int(re.search(r"ring_full=(\d+)", info).group(1))
        self.assertGreater(lost, 0, info)
        self.assertNotIn("Held at memory cap", info)
        doc = report_json(run.files[0])
        ranges = doc["files"][0]["ranges"]
        self.assertEqual((ranges["unbalanced_pops"], ranges["open_at_exit"]), (0, 0), ranges)
        calls = sum(1 for _ in gpuprof("dump", run.files[0]).stdout.splitlines())
        recorded_pairs = ranges["push_pop"]
        # Each call and each push and pop is either in the file or counted once as lost.
        expected = threads * (launches + 1) + 2 * threads * (pairs + 1)
        self.assertEqual(calls + 2 * recorded_pairs + lost, expected, info)
        self.assertTrue(any("lost" in l for l in run.stderr.splitlines()
                            if l.startswith("gprof:")), run.stderr)


class ThreadRaces(E2ETestCase):
    """The races of issue 12, through test/programs/nvtx_thread_races.cc."""

    def test_records_after_the_queue_was_orphaned_get_a_queue_of_their_own(self):
        threads = 200
        run = self.profile([program("nvtx_thread_races"), "late", str(threads)], timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, f"late: {threads} threads\n")
        self.assertEqual(len(run.files), 1)
        info = gpuprof("info", run.files[0]).stdout
        self.assertEqual(losses(info), "none", info)
        doc = report_json(run.files[0])
        ranges = doc["files"][0]["ranges"]
        self.assertEqual(ranges["push_pop"], 2 * threads)
        self.assertEqual((ranges["unbalanced_pops"], ranges["open_at_exit"]), (0, 0), ranges)
        rows = rows_by_name(doc)
        self.assertEqual((rows["early"]["count"], rows["late"]["count"]), (threads, threads))

    def test_a_fork_while_another_thread_adds_names_never_hangs_the_child(self):
        children = 30
        run = self.profile([program("nvtx_thread_races"), "fork", str(children)], timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, f"fork: {children} children, 0 failed\n")
        self.assertEqual(len(run.files), children + 1)
        seen = []
        for path in run.files:
            for line in gpuprof("dump", "--records", "ranges", path).stdout.splitlines():
                name = json.loads(line)["name"]
                if name.startswith("child "):
                    seen.append(name)
        self.assertEqual(sorted(seen), sorted(f"child {k}" for k in range(children)))


if __name__ == "__main__":
    unittest.main()


class RecordsInsideALaunch(E2ETestCase):
    """A launch's record is claimed before the real call and finished after it
    (inject/hooks_launch.cc); a signal handler that records on the same thread
    inside the call publishes it early, across chunk boundaries too, and the
    writer waits for it to be finished."""

    def test_a_handler_inside_every_launch_loses_and_reorders_nothing(self):
        n = 2000  # 112 bytes a launch with its handler's pair: several 64 KiB chunks
        run = self.profile([program("signal_in_launch"), str(n)],
                           env={"GPROF_FAKE_SIGNAL_IN_LAUNCH": "10"})  # SIGUSR1
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn(f"{n} launches, {n} signals handled", run.stdout)
        path = run.files[0]
        info = gpuprof("info", path).stdout
        self.assertEqual(losses(info), "none", info)
        self.assertRegex(info, rf"Records:\s+{n + 2} API calls on 1 thread, {n} kernel launches")
        self.assertRegex(info, rf"GPU records:\s+{n + 1} \({n} kernels, .*; 0 unpaired")
        self.assertRegex(info, rf"Ranges:\s+{n + 1} push/pop, 0 start/end, 0 marks\n")
        # One name per API: info's counts use the name report and trace show.
        self.assertRegex(info, rf"\n  cudaLaunchKernel +{n}\n")
        self.assertNotIn("__cudaLaunchKernel", info)
        launches = [r for r in dump(path) if r["api"] == "__cudaLaunchKernel"]
        self.assertEqual(len(launches), n)
        self.assertTrue(all(r["kernel"] == "_Z4tickPi" and r["correlation"] > 0 and
                            r["result"] == 0 for r in launches))
        out = gpuprof("dump", "--records", "ranges", path).stdout
        handlers = [json.loads(line) for line in out.splitlines() if '"in handler"' in line]
        self.assertEqual(len(handlers), n)
        # Each handler's range lies inside the launch that was in progress.
        for launch, handler in zip(launches, handlers):
            self.assertLessEqual(launch["start_ns"], handler["start_ns"])
            self.assertLessEqual(handler["end_ns"], launch["end_ns"])
