#include "test/unit/tools/cli_run.h"

#include <sys/wait.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test/unit/formats/sidecar_builder.h"

namespace gprof::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

Run gpuprof(const std::string& args, const std::string& env) {
  const char* exe = std::getenv("GPUPROF");
  REQUIRE(exe != nullptr);
  const std::string out = write_temp_file("cli.out", "");
  const std::string err = write_temp_file("cli.err", "");
  const std::string command = env + "'" + exe + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int raw = std::system(command.c_str());
  Run run;
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  run.out = slurp(out);
  run.err = slurp(err);
  return run;
}

size_t lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace gprof::test
