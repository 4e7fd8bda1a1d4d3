// How every output format writes values and changes: times as the report
// does (auto-scaled), memory in B/KB/MB/GB, counts whole where they are.
#pragma once

#include <optional>
#include <string>

#include "tools/comparison/runs/metrics.h"
#include "tools/comparison/runs/run_rows.h"

namespace gprof::comparison {

// "12", "12.5" (a median of an even number of runs), "1.500ms", "3.00 MB".
std::string format_value(double value, Unit unit);

// The signed difference now - base: "+3", "-1.500ms", "+2.00 KB"; "0" when
// there is none.
std::string format_change(double base, double now, Unit unit);

// (now - base) / |base| in percent; nullopt when base is 0 and now is not
// (an infinite change).
std::optional<double> relative_change(double base, double now);

// "1 call", "3 calls", "2.5 calls".
std::string format_calls(double count);

// "+50.0%", "-3.2%", "0.0%"; "new" from 0 and "gone" to 0: a row that
// appeared has no percentage (an infinite one reads as the worst regression).
std::string format_relative(double base, double now);

// "kernel square(float*, int)", with " [GROUP]" when the row has one.
std::string row_label(const RowKey& key);

}  // namespace gprof::comparison
