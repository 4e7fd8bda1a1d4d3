"""gpuprof on files the shim really wrote: sorting, limits, several files,
bad input, and protoc reading a frame of a real file."""

import csv
import io
import json
import os
import struct
import subprocess
import unittest

from gprof_e2e import (BUILD, E2ETestCase, SOURCE, gpuprof, parse_table, parse_time_ns, program,
                       run_program)


class Report(E2ETestCase):
    def setUp(self):
        super().setUp()
        run = self.profile([program("vector_add"), "--iterations", "5"])
        self.assertEqual(run.returncode, 0, run.stderr)
        self.file = run.files[0]

    def test_sort_and_limit(self):
        out = gpuprof("report", "--sort", "count", "--limit", "2", self.file).stdout
        rows, _, _ = parse_table(out)
        self.assertEqual(len(rows), 2)
        counts = sorted((int(r["# of Calls"]) for r in rows.values()), reverse=True)
        # [memory]: the 3 cudaMalloc and 3 cudaFree outside any range, as torch counts them.
        self.assertEqual(counts, [6, 5])
        out = gpuprof("report", "--sort", "self_cpu_time_total", self.file).stdout
        rows, _, _ = parse_table(out)
        selfs = [parse_time_ns(r["Self CPU"]) for r in rows.values()]
        self.assertEqual(selfs, sorted(selfs, reverse=True))

    def test_csv_and_json_parse_back_to_the_table(self):
        """Python's own csv and json modules read what the C++ writers produced."""
        table, _, footer = parse_table(gpuprof("report", self.file).stdout)
        rows = list(csv.DictReader(io.StringIO(gpuprof("report", "--format", "csv",
                                                       self.file).stdout)))
        self.assertEqual({r["Name"]: r["# of Calls"] for r in rows},
                         {name: r["# of Calls"] for name, r in table.items()})
        total = parse_time_ns(footer[0].split(": ")[1])
        self.assertAlmostEqual(sum(int(r["Self CPU (ns)"]) for r in rows), total, delta=500)
        report = json.loads(gpuprof("report", "--format", "json", self.file).stdout)
        self.assertEqual((report["schema"], report["version"]), ("gprof.report", 1))
        self.assertEqual({r["name"]: r["count"] for r in report["rows"]},
                         {name: int(r["# of Calls"]) for name, r in table.items()})
        gpu = sum(r["self_cuda_ns"] for r in report["rows"]
                  if r["kind"] in ("kernel", "memcpy", "memset"))
        self.assertEqual(report["totals"]["self_cuda_ns"], gpu)
        self.assertEqual(report["files"][0]["path"], self.file)
        md = gpuprof("report", "--format", "md", self.file).stdout
        self.assertIn("| `cudaLaunchKernel` |", md.replace("  ", " "))

    def test_time_unit_and_name_width(self):
        out = gpuprof("report", "--time-unit", "us", "--name-width", "12", self.file).stdout
        rows, _, _ = parse_table(out)
        self.assertIn("cudaLaunc...", rows)
        self.assertTrue(all(r["CPU total"].endswith("us") for r in rows.values()))

    def test_several_files_aggregate(self):
        second = self.profile([program("vector_add"), "--iterations", "3"]).files[0]
        rows, _, _ = parse_table(gpuprof("report", self.file, second).stdout)
        self.assertEqual(rows["cudaLaunchKernel"]["# of Calls"], "8")
        self.assertEqual(rows["cudaMalloc"]["# of Calls"], "6")

    def test_directories_and_group_by_rank(self):
        """A directory stands for the sidecar files under it, whatever their names; ranks
        come from the launcher's RANK and key rows with --group-by rank."""
        ranks = os.path.join(self.tmp, "job")
        os.makedirs(os.path.join(ranks, "node1"))
        for rank, iterations in (("0", "2"), ("1", "7")):
            run = run_program([program("vector_add"), "--iterations", iterations], self.tmp,
                              env={"RANK": rank,
                                   "GPROF_OUTPUT": os.path.join(ranks, "node1",
                                                                f"r{rank}-%p.out")})
            self.assertEqual(run.returncode, 0, run.stderr)
        with open(os.path.join(ranks, "notes.txt"), "w") as f:
            f.write("not a profile\n")
        # Nothing waits on a FIFO for its first bytes: it is not a sidecar file.
        os.mkfifo(os.path.join(ranks, "pipe"))
        rows, _, _ = parse_table(gpuprof("report", ranks).stdout)
        self.assertEqual(rows["cudaLaunchKernel"]["# of Calls"], "9")
        report = json.loads(gpuprof("report", "--format", "json", "--group-by", "rank",
                                    "--limit", "0", ranks).stdout)
        self.assertEqual(report["group_by"], "rank")
        launches = {r["group"]: r["count"] for r in report["rows"]
                    if r["name"] == "cudaLaunchKernel"}
        self.assertEqual(launches, {"0": 2, "1": 7})
        self.assertEqual(len(report["files"]), 2)
        # info and dump take directories too; one directory and a file in it is one file.
        info = gpuprof("info", ranks, os.path.join(ranks, "node1")).stdout
        self.assertEqual(info.count("== "), 2)
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        for command in ("report", "info", "dump"):
            none = gpuprof(command, empty, check=False)
            self.assertEqual(none.returncode, 1, command)
            self.assertIn("empty: no sidecar files in this directory", none.stderr)

    def test_missing_and_corrupt_files(self):
        missing = gpuprof("report", os.path.join(self.tmp, "nope.gprof"), check=False)
        self.assertEqual(missing.returncode, 1)
        self.assertEqual(len(missing.stderr.strip().splitlines()), 1)
        self.assertIn("nope.gprof", missing.stderr)
        garbage = os.path.join(self.tmp, "garbage.gprof")
        with open(garbage, "wb") as f:
            f.write(b"this is not a profile at all")
        bad = gpuprof("report", garbage, check=False)
        self.assertEqual(bad.returncode, 1)
        self.assertIn("garbage.gprof", bad.stderr)
        usage = gpuprof("report", "--sort", "nonsense", self.file, check=False)
        self.assertEqual(usage.returncode, 2)

    def test_truncated_file_keeps_whole_frames(self):
        with open(self.file, "rb") as f:
            data = f.read()
        cut = os.path.join(self.tmp, "cut.gprof")
        with open(cut, "wb") as f:
            f.write(data[:-5])  # into the footer frame
        report = gpuprof("report", cut)
        self.assertIn("incomplete", report.stderr)
        rows, _, _ = parse_table(report.stdout)
        self.assertEqual(rows["cudaLaunchKernel"]["# of Calls"], "5")
        self.assertIn("incomplete", gpuprof("info", cut).stdout)

    def test_bad_checksum_is_reported_and_skipped(self):
        data = bytearray(open(self.file, "rb").read())
        # The second frame holds the calls; flip a byte of its payload.
        first_len = struct.unpack_from("<I", data, 12)[0]
        second = 12 + 8 + first_len
        data[second + 8 + 3] ^= 0xFF
        bad = os.path.join(self.tmp, "bad.gprof")
        with open(bad, "wb") as f:
            f.write(data)
        info = gpuprof("info", bad).stdout
        self.assertRegex(info, r"1 bad")
        report = gpuprof("report", bad)
        self.assertIn("bad", report.stderr)

    def test_protoc_decodes_a_frame_payload(self):
        with open(self.file, "rb") as f:
            data = f.read()
        # Every frame after the 12-byte preamble: [length][crc32c][payload].
        decoded_frames = []
        at = 12
        while at + 8 <= len(data):
            n = struct.unpack_from("<I", data, at)[0]
            payload = data[at + 8: at + 8 + n]
            decoded_frames.append(subprocess.run(
                ["protoc", f"--proto_path={SOURCE}", "--decode=gprof.pb.Frame",
                 os.path.join(SOURCE, "formats", "gprof.proto")],
                input=payload, capture_output=True, check=True).stdout.decode())
            at += 8 + n
        self.assertIn("header {", decoded_frames[0])
        records = [d for d in decoded_frames if "api_calls {" in d]
        self.assertTrue(records, decoded_frames)
        self.assertIn('value: "_Z10vector_addPKfS0_Pfi"', records[0])
        self.assertTrue(any('devices {\n  name: "gprof fake GPU 0"' in d for d in decoded_frames))


class Demo(unittest.TestCase):
    def test_demo_counts_match_the_example(self):
        if os.path.realpath(BUILD) != os.path.realpath(os.path.join(SOURCE, "build")):
            self.skipTest("scripts/demo builds into build/; this suite runs from another build dir")
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        out = subprocess.run([os.path.join(SOURCE, "scripts", "demo")], capture_output=True,
                             text=True, env=env, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr)
        first = out.stdout.splitlines()[0]
        self.assertTrue(first.startswith("gprof demo:"), first)
        rows, _, _ = parse_table(out.stdout)
        self.assertEqual(rows["cudaLaunchKernel"]["# of Calls"], "10")
        self.assertEqual(rows["cudaDeviceSynchronize"]["# of Calls"], "10")
        self.assertEqual(rows["cudaMemcpy"]["# of Calls"], "3")
        self.assertEqual(rows["vector_add(float const*, float const*, float*, int)"]
                         ["# of Calls"], "10")



class KernelNames(E2ETestCase):
    """Issue 32 item 2: PyTorch's demangled kernels run to hundreds of characters; the text
    forms show a short name, CSV and JSON the whole one. gpuprof-gen's kernels are torch's."""

    FILL = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
            "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, "
            "1ul>)")
    FILL_SHORT = "vectorized_elementwise_kernel<4, FillFunctor<…>, array<…>>"

    def setUp(self):
        super().setUp()
        gen = os.environ.get("GPUPROF_GEN")
        if not gen:
            self.skipTest("GPUPROF_GEN not set")
        self.file = os.path.join(self.tmp, "gen.gprof")
        subprocess.run([gen, "--records", "20000", "-o", self.file], check=True,
                       stdout=subprocess.DEVNULL)

    def names(self, *options):
        out = gpuprof("report", "--view", "kernels", "--name-width", "400", *options,
                      self.file).stdout
        rows, _, _ = parse_table(out)
        return set(rows)

    def test_short_in_the_table_whole_on_request_and_in_csv_and_json(self):
        names = self.names()
        self.assertIn(self.FILL_SHORT, names)
        self.assertFalse([n for n in names if "at::native::" in n], names)
        # Names that fit torch's column stay whole, parameters and all.
        self.assertIn("ampere_sgemm_128x64_tn", names)
        self.assertIn(self.FILL, self.names("--full-names"))
        csv_names = {r["Name"] for r in csv.DictReader(io.StringIO(gpuprof(
            "report", "--view", "kernels", "--format", "csv", self.file).stdout))}
        self.assertIn(self.FILL, csv_names)
        report = json.loads(gpuprof("report", "--view", "kernels", "--format", "json",
                                    self.file).stdout)
        self.assertIn(self.FILL, {r["name"] for r in report["rows"]})
        md = gpuprof("report", "--view", "kernels", "--format", "md", self.file).stdout
        self.assertIn("`" + self.FILL_SHORT + "`", md)


if __name__ == "__main__":
    unittest.main()
