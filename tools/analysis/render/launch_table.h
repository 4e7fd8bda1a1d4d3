// The launches view's table (launches.h): Name, # of Calls, then avg,
// median, min and max of API, Queue and GPU time, in the column layout of
// the key-averages table.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/launches.h"
#include "tools/analysis/render/cell_table.h"
#include "tools/analysis/render/format.h"

namespace gprof::analysis {

// A column to sort by: a statistic of one time, # of Calls or Name.
struct LaunchSortKey {
  enum class Time { kApi, kQueue, kGpu, kNone } time = Time::kNone;
  enum class Stat { kAvg, kMedian, kMin, kMax, kCount, kName } stat = Stat::kCount;
  bool operator==(const LaunchSortKey&) const = default;
};

// Column titles, normalized as parse_sort_key does: "API avg", "queue_min",
// "GPU Median", "# of Calls" (also "count", "calls"), "Name" (also "key").
std::optional<LaunchSortKey> parse_launch_sort_key(std::string_view text);

// "api_avg", ..., "gpu_max", "count", "name": for help texts and errors.
std::vector<std::string> launch_sort_key_names();

// Descending by the column (ascending for Name); ties keep their order.
void sort_launch_rows(std::vector<LaunchRow>& rows, LaunchSortKey key);

struct LaunchTableOptions {
  std::optional<LaunchSortKey> sort;  // nullopt: rows as given
  size_t row_limit = 100;             // 0: all
  size_t max_name_width = 55;         // at least 4
  std::optional<TimeUnit> time_unit;  // nullopt: auto-scale per value
  bool full_names = false;            // kernels by readable_kernel_name unless set
};

// Columns: Name, # of Calls, API avg, API median, API min, API max, Queue avg,
// Queue median, Queue min, Queue max, GPU avg, GPU median, GPU min, GPU max.
// "" when there are no rows.
std::string render_launch_table(std::vector<LaunchRow> rows, const LaunchTableOptions& options);

// The same rows and columns as cells (cell_table.h): sorted and limited as the
// table, names whole; raw times in ns.
CellTable launch_cells(std::vector<LaunchRow> rows, const LaunchTableOptions& options);

}  // namespace gprof::analysis
