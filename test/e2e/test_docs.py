"""The documentation a user reads (README.md, docs/) points only at what the repository has:
no internal design notes (not part of it), every relative link to a file that exists, and the
columns the CLI prints explained in docs/columns.md (issue 18, item 7). Source comments cite
docs/architecture.md by section, each one a section it has, and nothing cites the internal
notes any more (issue 31, item 5)."""

import glob
import os
import re
import subprocess
import unittest

from gprof_e2e import SOURCE, gpuprof

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
ARCHITECTURE = os.path.join(SOURCE, "docs", "architecture.md")
# A numbered heading of docs/architecture.md: "## 3. Capture", "### 3.4 Other CUPTI clients".
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", re.MULTILINE)
SECTION = r"§(\d+(?:\.\d+)?)"
# "docs/architecture.md §3.4", also "§2.1, §2.5", "§2.1 and §2.2", "§2.6-2.7", and a citation
# whose section a comment carries to its next line ("docs/architecture.md\n// §3.4").
CITATION = re.compile(r"docs/architecture\.md(?:\s|//|#|\*)*" + SECTION +
                      r"((?:(?:,\s*|\s+and\s+)§\d+(?:\.\d+)?|-\d+(?:\.\d+)?)*)")
# Spelled in two pieces, so that this file does not cite it either.
INTERNAL_NOTES = "DESIGN" + ".md"


def documents():
    return [os.path.join(SOURCE, "README.md"), *sorted(glob.glob(os.path.join(SOURCE, "docs",
                                                                             "*.md")))]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def source_files():
    """Every file of the source tree: git's list (committed, and new files not ignored), else a
    walk that leaves out hidden folders and Meson build directories."""
    try:
        out = subprocess.run(["git", "-C", SOURCE, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
        paths = [os.path.join(SOURCE, n) for n in out.decode().split("\0") if n]
        if paths:
            return [p for p in paths if os.path.isfile(p)]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for root, dirs, names in os.walk(SOURCE):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__" and
                   not os.path.isdir(os.path.join(root, d, "meson-private"))]
        files.extend(os.path.join(root, n) for n in names)
    return files


def source_texts():
    """(path relative to the source root, text) of every source file; binary files as text too,
    since a citation is plain ASCII either way."""
    for path in source_files():
        with open(path, "rb") as f:
            yield os.path.relpath(path, SOURCE), f.read().decode("utf-8", errors="replace")


def cited_sections(text):
    """(section, line number) of each docs/architecture.md section that `text` cites."""
    for m in CITATION.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        yield m.group(1), line
        for more in re.finditer(r"(?:§|-)(\d+(?:\.\d+)?)", m.group(2)):
            yield more.group(1), line


def architecture_sections():
    return set(HEADING.findall(read(ARCHITECTURE)))


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

    def test_cited_architecture_sections_exist(self):
        sections = architecture_sections()
        self.assertTrue({"1", "1.1", "2.1", "3.4", "5.3", "9"} <= sections, sorted(sections))
        cited = 0
        for path, text in source_texts():
            for section, line in cited_sections(text):
                cited += 1
                self.assertTrue(section in sections,
                                f"{path}:{line} cites docs/architecture.md §{section}, which it "
                                f"does not have (its sections: {', '.join(sorted(sections))})")
        # The pattern still finds the comments' citations (about a hundred).
        self.assertGreater(cited, 80)
        # The document's own cross-references, "(§3.5)", point inside it too.
        for m in re.finditer(SECTION, read(ARCHITECTURE)):
            self.assertTrue(m.group(1) in sections,
                            f"docs/architecture.md refers to §{m.group(1)}, which it does not have")

    def test_nothing_cites_the_internal_design_notes(self):
        citing = [f"{path}:{text.count(chr(10), 0, m.start()) + 1}"
                  for path, text in source_texts()
                  for m in re.finditer(re.escape(INTERNAL_NOTES), text)]
        self.assertEqual(citing, [], f"cite docs/architecture.md instead of {INTERNAL_NOTES}")

    def test_readme_points_contributors_to_the_architecture(self):
        self.assertTrue("(docs/architecture.md)" in read(os.path.join(SOURCE, "README.md")),
                        "README.md does not link docs/architecture.md")


if __name__ == "__main__":
    unittest.main()
