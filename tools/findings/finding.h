// What a rule found: its evidence (the numbers that prove it), where it
// happened and what to do about it. Rendered as text, Markdown and JSON
// (docs/analyze.md has the JSON schema).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gprof::findings {

// From the share of the window the finding costs (Finding::impact_share):
// high from 50%, medium from 20%, low below.
enum class Severity : uint8_t { kLow, kMedium, kHigh };
std::string_view severity_name(Severity severity);
Severity severity_of(double impact_share);

// How a number is printed; JSON has it raw (ns, bytes, a ratio 0..1).
enum class Unit : uint8_t { kCount, kTime, kBytes, kShare, kPerStep };
std::string_view unit_name(Unit unit);

struct Metric {
  std::string key;    // stable, for JSON: "copies", "median_bytes"
  std::string label;  // for people: "copies", "median size"
  double value = 0;
  Unit unit = Unit::kCount;
};

// One place a finding's cost went, with its share of that cost.
struct Place {
  std::string name;
  uint64_t cost_ns = 0;
  double share = 0;
};

struct Where {
  std::vector<Place> ranges;  // innermost NVTX ranges; "(no range)" for calls outside any
  std::string step_pattern;   // empty: no steps
  uint64_t steps_hit = 0;     // steps in which it happened
  uint64_t steps = 0;         // steps in the files
  std::vector<Place> threads;
  std::vector<Place> streams;
  std::vector<Place> devices;
  std::vector<Place> files;  // the file or rank
  // The GPU activities involved, as report names their rows: kernels
  // (demangled), "Memcpy HtoD (Pageable -> Device)"...
  std::vector<Place> activities;
};

// gpu-idle's longest gaps, with what the CPU was doing meanwhile.
struct Gap {
  std::string file;
  uint32_t device = 0;
  uint64_t offset_ns = 0;  // from the start of the file's window
  uint64_t length_ns = 0;
  std::string range;               // the innermost range open during most of it; empty: none
  std::vector<std::string> calls;  // API calls open during it, "cudaStreamSynchronize (1.2ms)"
};

struct Finding {
  std::string rule;
  Severity severity = Severity::kLow;
  std::string summary;  // one sentence with the key numbers
  uint64_t impact_ns = 0;
  double impact_share = 0;  // impact_ns over the window
  std::vector<Metric> evidence;
  Where where;
  std::vector<Gap> gaps;
  std::string suggestion;
};

}  // namespace gprof::findings
