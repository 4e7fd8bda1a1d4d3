"""`gpuprof info` and `gpuprof dump` on a big file (issue 31 item 2, "every command"): streamed,
the in-memory bytes, in bounded memory. Beside test_stream.py, whose StreamCase.check compares
both commands with the in-memory loader on every file it checks; apart, so that each suite stays
inside its time limit on two cores."""

import os
import re
import subprocess
import tempfile
import unittest

from gprof_e2e import E2ETestCase
from test_stream import GEN, info, with_peak


class InfoAndDump(E2ETestCase):
    @unittest.skipUnless(GEN, "GPUPROF_GEN not set")
    def test_info_and_dump_stream(self):
        """Issue 31 item 2 ("every command"): `info` read every file in memory (686 MB for 10M
        records, ~70 bytes a record) and so did `dump`, even of API records only. `info` now
        reads through report's stream, its counts beside it in the same read; `dump` (API
        records) prints each call as it is read; `dump --records all` pairs ranges as they come
        and GPU records in a second read, and prints those in a third (the bytes are compared
        with the in-memory loader's in StreamCase.check). The same bytes, in bounded memory."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lag.gprof")
            subprocess.run([GEN, "--records", "2M", "--gpu-lag", "30", "-o", path], check=True,
                           capture_output=True)
            streamed, peak_kb = with_peak(["info", "--quiet", path])
            self.assertEqual(streamed.returncode, 0, streamed.stderr)
            self.assertNotIn("read in memory", streamed.stderr)
            self.assertRegex(streamed.stdout, r"GPU records: +\d+ .*; 0 unpaired")
            self.assertEqual(streamed.stdout, info([path], stream=False).stdout)
            self.assertLess(peak_kb, 100 * 1024)
            lines = os.path.join(d, "api.jsonl")
            api, peak_kb = with_peak(["dump", "--quiet", path], stdout_path=lines)
            self.assertEqual(api.returncode, 0, api.stderr)
            calls = int(re.search(r"Records: +(\d+) API calls", streamed.stdout).group(1))
            self.assertGreater(calls, 300000)
            with open(lines) as f:
                self.assertEqual(sum(line.endswith('"type":"api"}\n') for line in f), calls)
            self.assertLess(peak_kb, 40 * 1024)
            everything, peak_kb = with_peak(["dump", "--quiet", "--records", "all", path],
                                            stdout_path=lines)
            self.assertEqual(everything.returncode, 0, everything.stderr)
            self.assertNotIn("read in memory", everything.stderr)
            records = int(re.search(r"GPU records: +(\d+) ", streamed.stdout).group(1))
            unpaired = int(re.search(r"(\d+) unpaired", streamed.stdout).group(1))
            ranges = re.search(r"Ranges: +(\d+) push/pop, (\d+) start/end, (\d+) mark",
                               streamed.stdout)
            kinds = {"api": 0, "gpu": 0, "range": 0, "paired": 0}
            with open(lines) as f:
                for line in f:
                    kinds[re.search(r'"type":"(\w+)"}$', line).group(1)] += 1
                    kinds["paired"] += '"api_correlation"' in line
            self.assertEqual(kinds, {"api": calls, "gpu": records,
                                     "range": sum(int(n) for n in ranges.groups()),
                                     "paired": records - unpaired})
            self.assertGreater(kinds["range"], 100000)
            self.assertLess(peak_kb, 100 * 1024)


if __name__ == "__main__":
    unittest.main()
