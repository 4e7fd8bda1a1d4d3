// The plain JSON's writing thread (background_writer.h): the bytes arrive in
// order and whole, however many pieces wait; a failed write is told, with
// its errno, by the next write or by finish().
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <string>

#include "tools/trace/background_writer.h"

namespace gprof::trace {
namespace {

TEST_CASE("background writer: every piece, in order", "[trace]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  std::string expected;
  {
    BackgroundWriter writer(f);
    for (int i = 0; i < 2000; ++i) {
      // Pieces of many sizes, so that the reused buffers grow and shrink.
      const std::string piece = std::to_string(i) + std::string(static_cast<size_t>(i % 97), 'x');
      expected += piece;
      REQUIRE(writer.write(piece));
    }
    REQUIRE(writer.finish());
  }
  std::string written(static_cast<size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  REQUIRE(std::fread(written.data(), 1, written.size(), f) == written.size());
  std::fclose(f);
  CHECK(written == expected);
}

TEST_CASE("background writer: a failed write is told, with its errno", "[trace]") {
  std::FILE* f = std::fopen("/dev/full", "wb");  // every write: ENOSPC
  if (f == nullptr) {
    WARN("no /dev/full: not checked");
    return;
  }
  std::setvbuf(f, nullptr, _IONBF, 0);
  BackgroundWriter writer(f);
  const std::string piece(1 << 16, 'x');
  bool refused = false;
  for (int i = 0; i < 100 && !refused; ++i) refused = !writer.write(piece);
  errno = 0;
  CHECK_FALSE(writer.finish());
  CHECK(errno == ENOSPC);
  CHECK_FALSE(writer.write(piece));  // and every write after it
  std::fclose(f);
}

}  // namespace
}  // namespace gprof::trace
