#include "tools/comparison/render/xml_text.h"

#include <cstdint>

#include "formats/read/utf8_text.h"

namespace gprof::comparison {
namespace {

// Valid UTF-8 that XML 1.0 still forbids: the non-characters U+FFFE, U+FFFF.
bool is_xml_noncharacter(std::string_view sequence) {
  return sequence == "\xEF\xBF\xBE" || sequence == "\xEF\xBF\xBF";
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto byte = static_cast<uint8_t>(c);
    if (byte >= 0x80) {
      const size_t length = utf8_sequence_length(text, i);
      if (length == 0 || is_xml_noncharacter(text.substr(i, length))) {
        out += kReplacementCharacter;
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (byte < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += kReplacementCharacter;
        else
          out += c;
    }
  }
  return out;
}

}  // namespace gprof::comparison
