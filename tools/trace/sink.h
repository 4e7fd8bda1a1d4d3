// Where the trace's bytes go: a file (output_file.h) or, in tests, memory.
#pragma once

#include <string>
#include <string_view>

namespace gprof::trace {

class Sink {
 public:
  virtual ~Sink() = default;
  // False once writing failed; later writes may be dropped.
  virtual bool write(std::string_view bytes) = 0;
};

class StringSink : public Sink {
 public:
  bool write(std::string_view bytes) override {
    text.append(bytes);
    return true;
  }
  std::string text;
};

}  // namespace gprof::trace
