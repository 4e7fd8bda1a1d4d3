// Writes a golden sidecar file from training_fixture.h's captures:
//   make_golden_sidecar training test/unit/tools/golden/training.gprof
//   make_golden_sidecar regressed test/unit/tools/comparison/golden/regressed.gprof
//   make_golden_sidecar analyze test/unit/tools/findings/golden/analyze.gprof
// (README.md here and in ../diff/golden). The tests read the checked-in copies
// and never regenerate them.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "test/unit/tools/analyze_fixture.h"
#include "test/unit/tools/training_fixture.h"

int main(int argc, char** argv) {
  const bool training = argc == 3 && std::strcmp(argv[1], "training") == 0;
  const bool regressed = argc == 3 && std::strcmp(argv[1], "regressed") == 0;
  const bool analyze = argc == 3 && std::strcmp(argv[1], "analyze") == 0;
  if (!training && !regressed && !analyze) {
    std::fprintf(stderr, "usage: %s training|regressed|analyze OUT.gprof\n", argv[0]);
    return 2;
  }
  const std::string bytes = training    ? gprof::test::training_capture()
                            : regressed ? gprof::test::regressed_training_capture()
                                        : gprof::test::analyze_capture();
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[2]);
    return 1;
  }
  return 0;
}
