"""The documentation a user reads (README.md, docs/) points only at what the repository has:
no DESIGN.md (not part of it), every relative link to a file that exists, and the columns the
CLI prints explained in docs/columns.md (issue 18, item 7)."""

import glob
import os
import re
import unittest

from gprof_e2e import SOURCE, gpuprof

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def documents():
    return [os.path.join(SOURCE, "README.md"), *sorted(glob.glob(os.path.join(SOURCE, "docs",
                                                                             "*.md")))]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class Docs(unittest.TestCase):
    def test_no_document_sends_users_to_design_md(self):
        for path in documents():
            self.assertNotIn("DESIGN", read(path), path)

    def test_relative_links_resolve(self):
        for path in documents():
            for target in LINK.findall(read(path)):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                file = os.path.normpath(os.path.join(os.path.dirname(path),
                                                     target.split("#")[0]))
                self.assertTrue(os.path.exists(file), f"{path}: {target}")

    def test_columns_are_explained(self):
        columns = read(os.path.join(SOURCE, "docs", "columns.md"))
        golden = os.path.join(SOURCE, "test", "unit", "tools", "golden", "training.gprof")
        printed = set()
        for view in ("ops", "launches"):
            out = gpuprof("report", "--view", view, "--profile-memory", golden).stdout
            header = next(l for l in out.splitlines() if l.strip().startswith("Name"))
            printed.update(re.split(r"\s{2,}", header.strip())[1:])
        self.assertTrue({"Self CPU %", "CUDA Mem", "# of Calls"} <= printed, printed)
        for title in printed:
            # "Queue median" is the median of "Queue time", explained once for all four.
            base = re.sub(r" (avg|median|min|max)$", "", title)
            base = {"API": "API time", "Queue": "Queue time", "GPU": "GPU time"}.get(base, base)
            self.assertIn(f"**{base}", columns, f"docs/columns.md does not explain {title!r}")

    def test_readme_links_columns(self):
        self.assertIn("(docs/columns.md)", read(os.path.join(SOURCE, "README.md")))


if __name__ == "__main__":
    unittest.main()
