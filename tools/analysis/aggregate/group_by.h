// --group-by: what besides the name keys a row, as torch's
// key_averages(group_by_input_shape=True) adds the input shapes. The value
// is shown in a column after "# of Calls" and is empty for rows it does not
// apply to.
//   name           nothing (the default)
//   launch-config  kernel launches and kernels: grid, block, shared memory
//                  (a call: what it asked for, dynamic shared memory; a
//                  kernel: what ran, static + dynamic)
//   stream         GPU work: its CUPTI stream; an API call: that of the
//                  first GPU work it issued
//   device         likewise, the device ordinal
//   thread         ranges and calls: their thread; GPU work: the thread of
//                  the call that issued it; "tid (name)" when NVTX named it
//   process        every row: the pid of its file, and its rank when known
//   rank           every row: the rank of its file (the launcher's RANK,
//                  OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID; "0"
//                  without one), so that the processes of one rank (forks,
//                  restarts) add up; "pid N" when the file has no rank
//   input-shape    PyTorch ops (emit_nvtx ranges): the "sizes" part of the
//                  message, "[[8, 16], [16, 4]]", as torch's
//                  group_by_input_shape ("Input Shapes"); "[]" for an op
//                  without sizes, empty for other rows
//   seq            PyTorch ops: torch's sequence number, which a backward op
//                  shares with the forward op it differentiates ("Seq")
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/record.h"

namespace gprof::analysis {

enum class GroupBy : uint8_t {
  kName,
  kLaunchConfig,
  kStream,
  kDevice,
  kThread,
  kProcess,
  kRank,
  kInputShape,
  kSeq,
};

// "name", "launch-config" (also "launch_config"), "stream", "device",
// "thread", "process", "rank", "input-shape" (also "input_shape"), "seq";
// nullopt for anything else.
std::optional<GroupBy> parse_group_by(std::string_view text);

// The canonical name: "launch-config" whichever spelling was given.
std::string_view group_by_name(GroupBy group_by);

// The names parse_group_by accepts, for help texts and errors.
std::vector<std::string_view> group_by_names();

// The column title: "" (name), "Launch Config", "Stream", "Device", "Thread",
// "Process".
std::string_view group_title(GroupBy group_by);

// "grid=[4096, 1, 1] block=[256, 1, 1] smem=0"
std::string launch_config_text(const Dim3& grid, const Dim3& block, uint32_t shared_mem);

// "1234", or "1234 (loader)" when the thread has a name.
std::string thread_text(uint32_t tid, const std::string* name);

// "42", or "42 (rank 3)".
std::string process_text(uint32_t pid, std::string_view rank);

// "3", or "pid 42" when there is no rank.
std::string rank_text(uint32_t pid, std::string_view rank);

}  // namespace gprof::analysis
