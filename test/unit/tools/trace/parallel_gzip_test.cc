// The trace's .gz output (parallel_gzip.h): one gzip member that zlib
// inflates back to the input, the same bytes on one thread or several, for
// inputs shorter than a chunk, exactly a chunk, and several chunks.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <random>
#include <string>

#include "tools/trace/parallel_gzip.h"

namespace gprof::trace {
namespace {

std::string compressed(const std::string& input, unsigned threads, size_t piece) {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  {
    ParallelGzip gz(f, threads, 1);
    for (size_t at = 0; at < input.size(); at += piece)
      REQUIRE(gz.write(std::string_view(input).substr(at, piece)));
    REQUIRE(gz.finish());
  }
  std::string out(static_cast<size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  REQUIRE(std::fread(out.data(), 1, out.size(), f) == out.size());
  std::fclose(f);
  return out;
}

// Inflates one gzip member; it must end exactly at the end of `gz`.
std::string inflated(const std::string& gz) {
  z_stream s{};
  REQUIRE(inflateInit2(&s, 16 + 15) == Z_OK);
  std::string out;
  char buffer[1 << 16];
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  s.avail_in = static_cast<uInt>(gz.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    s.next_out = reinterpret_cast<Bytef*>(buffer);
    s.avail_out = sizeof(buffer);
    rc = inflate(&s, Z_NO_FLUSH);
    out.append(buffer, sizeof(buffer) - s.avail_out);
  }
  CHECK(rc == Z_STREAM_END);  // CRC-32 and length checked by zlib
  CHECK(s.avail_in == 0);     // one member, nothing after it
  inflateEnd(&s);
  return out;
}

TEST_CASE("parallel gzip: one member, the input back, the same bytes on any thread count",
          "[trace]") {
  std::mt19937 random(7);
  std::string text;  // JSON-like: compressible, with repeats across chunks
  while (text.size() < 3 * ParallelGzip::kChunk + 12345)
    text += "{\"ph\":\"X\",\"name\":\"kernel_" + std::to_string(random() % 50) +
            "\",\"ts\":" + std::to_string(random()) + "},\n";
  for (const size_t size : {size_t{0}, size_t{100}, ParallelGzip::kChunk, text.size()}) {
    INFO(size);
    const std::string input = text.substr(0, size);
    const std::string one = compressed(input, 1, 1 << 20);
    CHECK(inflated(one) == input);
    CHECK(compressed(input, 4, 1 << 20) == one);
    CHECK(compressed(input, 3, 777) == one);  // however the writes are cut
  }
}

}  // namespace
}  // namespace gprof::trace
