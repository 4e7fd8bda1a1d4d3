// The memory view's table (transfers.h): Name, Size, # of Calls, Total
// Bytes, GPU total, GPU avg, Bandwidth, in the column layout of the
// key-averages table, and a line of totals under it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/transfers.h"
#include "tools/analysis/render/cell_table.h"
#include "tools/analysis/render/format.h"

namespace gprof::analysis {

enum class TransferSortKey { kName, kCount, kBytes, kGpuTotal, kGpuAvg, kBandwidth };

// "name" (also "key"; by name, then size), "count" ("calls", "# of Calls"),
// "bytes" ("Total Bytes"), "gpu_total" ("GPU total"), "gpu_avg", "bandwidth";
// normalized as parse_sort_key does.
std::optional<TransferSortKey> parse_transfer_sort_key(std::string_view text);
std::vector<std::string_view> transfer_sort_key_names();

// Descending (name: ascending, then size); ties keep their order.
void sort_transfer_rows(std::vector<TransferRow>& rows, TransferSortKey key);

struct TransferTableOptions {
  TransferSortKey sort = TransferSortKey::kName;
  size_t row_limit = 100;  // 0: all
  size_t max_name_width = 55;
  std::optional<TimeUnit> time_unit;
};

// Bandwidth as "12.34 GB/s" (10^9 bytes), "-" without GPU time. Footer:
// "Copies and sets: 4 calls, 1.38 MB, GPU time 4.000us". "" when there are no
// rows.
std::string render_transfer_table(std::vector<TransferRow> rows,
                                  const TransferTableOptions& options);

// The same rows and columns as cells (cell_table.h), the totals line as the
// footer; raw times in ns, sizes in bytes, bandwidth in GB/s.
CellTable transfer_cells(std::vector<TransferRow> rows, const TransferTableOptions& options);

}  // namespace gprof::analysis
