// Writes the NEW side of the diff golden files (golden/README.md):
//   make_diff_golden test/unit/tools/diff/golden/regressed.gprof
// The tests read the checked-in copy and never regenerate it.
#include <cstdio>
#include <fstream>
#include <string>

#include "test/unit/tools/diff/regressed_fixture.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.gprof\n", argv[0]);
    return 2;
  }
  const std::string bytes = gprof::test::regressed_training_capture();
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[1]);
    return 1;
  }
  return 0;
}
