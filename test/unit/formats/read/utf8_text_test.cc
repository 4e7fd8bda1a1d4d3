#include "formats/read/utf8_text.h"

#include <catch2/catch.hpp>
#include <string>

namespace gprof {
namespace {

std::string fixed(std::string text) {
  make_valid_utf8(text);
  return text;
}

TEST_CASE("utf8_text: valid text is left as it is", "[utf8]") {
  CHECK(fixed("") == "");
  CHECK(fixed("void k<float>(float*, int)") == "void k<float>(float*, int)");
  CHECK(fixed("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80") ==
        "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80");
  CHECK(is_valid_utf8("\xEF\xBF\xBD"));
}

TEST_CASE("utf8_text: each byte that starts no valid sequence becomes U+FFFD", "[utf8]") {
  const std::string r(kReplacementCharacter);
  CHECK(fixed("bad\xFF\xFEutf8") == "bad" + r + r + "utf8");
  CHECK(fixed("caf\xE9") == "caf" + r);               // Latin-1
  CHECK(fixed("\xC0\xAF") == r + r);                  // overlong '/'
  CHECK(fixed("\xED\xA0\x80") == r + r + r);          // a surrogate
  CHECK(fixed("\xF4\x90\x80\x80") == r + r + r + r);  // above U+10FFFF
  CHECK(fixed("end\xE2\x82") == "end" + r + r);       // cut short
  CHECK(fixed("\x80x") == r + "x");                   // a lone continuation byte
  CHECK_FALSE(is_valid_utf8("\xE2\x82"));
}

}  // namespace
}  // namespace gprof
