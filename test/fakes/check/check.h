// Plain checks for the fakes' own test: a failed check prints where and what, and the case goes
// on, so that one run reports every difference; the case fails if any check did.
#pragma once

#include <sstream>
#include <string>

namespace fake_check {

void Fail(const char* file, int line, const std::string& what);
int Failures();

template <typename T>
std::string Show(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

inline std::string Show(const char* value) {
  return value == nullptr ? "(null)" : '"' + std::string(value) + '"';
}

inline std::string Show(char* value) {
  return Show(static_cast<const char*>(value));
}

}  // namespace fake_check

#define CHECK(condition)                                                               \
  do {                                                                                 \
    if (!(condition)) ::fake_check::Fail(__FILE__, __LINE__, "CHECK(" #condition ")"); \
  } while (0)

#define CHECK_EQ(actual, expected)                                                      \
  do {                                                                                  \
    const auto& check_actual = (actual);                                                \
    const auto& check_expected = (expected);                                            \
    if (!(check_actual == check_expected)) {                                            \
      ::fake_check::Fail(                                                               \
          __FILE__, __LINE__,                                                           \
          "CHECK_EQ(" #actual ", " #expected "): " + ::fake_check::Show(check_actual) + \
              " != " + ::fake_check::Show(check_expected));                             \
    }                                                                                   \
  } while (0)
