// Text as XML 1.0 character data or attribute values, for the JUnit report.
#pragma once

#include <string>
#include <string_view>

namespace gprof::comparison {

// & < > " ' as entities; control characters XML 1.0 forbids (all below
// 0x20 but tab, LF, CR) and bytes that are not valid UTF-8 become U+FFFD, so
// that a kernel name with odd bytes cannot make the document unreadable.
std::string xml_escape(std::string_view text);

}  // namespace gprof::comparison
