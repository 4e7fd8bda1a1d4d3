#include "tools/analysis/read/temp_file.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gprof::analysis {
namespace {

// Sets TMPDIR for one test and puts back what was there.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const char* value) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    if (value != nullptr)
      ::setenv("TMPDIR", value, 1);
    else
      ::unsetenv("TMPDIR");
  }
  ~ScopedTmpdir() {
    if (old_)
      ::setenv("TMPDIR", old_->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }

 private:
  std::optional<std::string> old_;
};

size_t entries(const std::string& dir) {
  size_t n = 0;
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d != nullptr);
  while (const dirent* e = ::readdir(d))
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") ++n;
  ::closedir(d);
  return n;
}

TEST_CASE("TempFile: made in TMPDIR, leaves no name behind, reads back what was appended") {
  std::string dir = "/tmp/gprof-temp-file-test-XXXXXX";
  REQUIRE(::mkdtemp(dir.data()) != nullptr);
  {
    ScopedTmpdir tmpdir(dir.c_str());
    CHECK(TempFile::directory() == dir);
    TempFile file("testing");
    const std::vector<uint64_t> values = {1, 2, 3, 1ull << 40};
    CHECK(file.append(values.data(), 16) == 0);
    CHECK(file.append(values.data() + 2, 16) == 16);
    CHECK(file.size() == 32);
    std::vector<uint64_t> back(4);
    file.read(0, back.data(), 32);
    CHECK(back == values);
    CHECK(entries(dir) == 0);  // anonymous while open
    uint64_t past = 0;
    CHECK_THROWS_AS(file.read(32, &past, sizeof past), std::runtime_error);
  }
  CHECK(entries(dir) == 0);
  ::rmdir(dir.c_str());
}

TEST_CASE("TempFile: without TMPDIR (or with an empty one), /tmp") {
  {
    ScopedTmpdir tmpdir(nullptr);
    CHECK(TempFile::directory() == "/tmp");
  }
  ScopedTmpdir tmpdir("");
  CHECK(TempFile::directory() == "/tmp");
}

TEST_CASE("TempFile: a TMPDIR that cannot hold files is an error naming it and the way out") {
  ScopedTmpdir tmpdir("/nonexistent/gprof-temp");
  try {
    TempFile file("sorting");
    FAIL("a temporary file was made in a directory that does not exist");
  } catch (const std::runtime_error& e) {
    using Catch::Matchers::Contains;
    CHECK_THAT(e.what(), Contains("cannot create a temporary file for sorting in "
                                  "/nonexistent/gprof-temp: No such file or directory"));
    CHECK_THAT(e.what(), Contains("set TMPDIR"));
  }
}

}  // namespace
}  // namespace gprof::analysis
