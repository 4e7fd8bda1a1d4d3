#include "tools/trace/json_text.h"

#include <iterator>

namespace gprof::trace {

void append_json_string(Buffer& out, std::string_view text) {
  out.push_back('"');
  size_t plain = 0;  // start of the run of bytes copied as they are
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.substr(plain, i - plain));
    plain = i + 1;
    switch (c) {
      case '"':
        out.append(std::string_view("\\\""));
        break;
      case '\\':
        out.append(std::string_view("\\\\"));
        break;
      case '\n':
        out.append(std::string_view("\\n"));
        break;
      case '\t':
        out.append(std::string_view("\\t"));
        break;
      default:
        fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
    }
  }
  out.append(text.substr(plain));
  out.push_back('"');
}

void append_microseconds(Buffer& out, int64_t ns) {
  // Unsigned, so that the most negative value has a magnitude too.
  uint64_t magnitude = static_cast<uint64_t>(ns);
  if (ns < 0) {
    out.push_back('-');
    magnitude = ~magnitude + 1;
  }
  fmt::format_to(std::back_inserter(out), "{}.{:03}", magnitude / 1000, magnitude % 1000);
}

}  // namespace gprof::trace
