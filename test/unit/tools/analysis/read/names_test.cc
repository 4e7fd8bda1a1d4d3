// Small naming rules: globs, range row names, --group-by values, views.
#include <catch2/catch.hpp>

#include <string>

#include "tools/analysis/aggregate/group_by.h"
#include "tools/analysis/model/glob.h"
#include "tools/analysis/read/range_names.h"
#include "tools/analysis/render/range_text.h"
#include "tools/analysis/render/views.h"

namespace gprof::analysis {
namespace {

TEST_CASE("glob: exact names and '*'", "[names]") {
  CHECK(glob_match("forward", "forward"));
  CHECK_FALSE(glob_match("forward", "forward2"));
  CHECK_FALSE(glob_match("forward", "Forward"));
  CHECK(glob_match("ProfilerStep*", "ProfilerStep#12"));
  CHECK(glob_match("ProfilerStep*", "ProfilerStep"));
  CHECK_FALSE(glob_match("ProfilerStep*", "xProfilerStep#1"));
  CHECK(glob_match("*mm*", "aten::mm"));
  CHECK(glob_match("*mm*", "aten::addmm_"));
  CHECK(glob_match("a*b*c", "a-b-b-c"));
  CHECK_FALSE(glob_match("a*b*c", "a-b-b-d"));
  CHECK(glob_match("*", ""));
  CHECK_FALSE(glob_match("", "x"));
  CHECK(glob_match_any({"x", "st*"}, "step 3"));
  CHECK_FALSE(glob_match_any({}, "step 3"));
}

TEST_CASE("range names: emit_nvtx decorations are dropped", "[names]") {
  CHECK(torch_op_name("aten::mm, seq = 12") == "aten::mm");
  CHECK(torch_op_name("aten::mm, seq = 12, op_id = 40, sizes = [[2, 3], [3, 4]]") == "aten::mm");
  CHECK(torch_op_name("aten::add, op_id = 3") == "aten::add");
  CHECK(torch_op_name("MulBackward0, stashed seq = 7") == "MulBackward0");
  CHECK(torch_op_name("aten::cat, sizes = [[1], [1]], input_op_ids = [(1, 0)]") == "aten::cat");
  CHECK(torch_op_name("forward, backward") == "forward, backward");
  CHECK(torch_op_name("ProfilerStep#3") == "ProfilerStep#3");
  CHECK(torch_input_shapes("aten::mm, seq = 12, op_id = 40, sizes = [[2, 3], [3, 4]]") ==
        "[[2, 3], [3, 4]]");
  CHECK(torch_input_shapes("aten::cat, sizes = [[1], [1]], input_op_ids = [(1, 0)]") ==
        "[[1], [1]]");
  CHECK(torch_input_shapes("aten::mm, sizes = [[8, 16], [16, 4]]") == "[[8, 16], [16, 4]]");
  CHECK(torch_input_shapes("aten::mm, seq = 12").empty());
  CHECK(torch_input_shapes("forward").empty());

  const std::string message = "aten::mm, seq = 1";
  const std::string domain = "NCCL";
  const std::string empty;
  CHECK(range_row_name(&message, nullptr) == "aten::mm");
  CHECK(range_row_name(&message, &domain) == "NCCL:aten::mm");
  CHECK(range_row_name(&message, &empty) == "aten::mm");
  CHECK(range_row_name(nullptr, nullptr) == "<unnamed range>");
  CHECK(range_row_name(&empty, &domain) == "NCCL:<unnamed range>");
}

TEST_CASE("group by: names, titles and values", "[names]") {
  CHECK(parse_group_by("name") == GroupBy::kName);
  CHECK(parse_group_by("launch-config") == GroupBy::kLaunchConfig);
  CHECK(parse_group_by("launch_config") == GroupBy::kLaunchConfig);
  CHECK(parse_group_by("stream") == GroupBy::kStream);
  CHECK(parse_group_by("device") == GroupBy::kDevice);
  CHECK(parse_group_by("thread") == GroupBy::kThread);
  CHECK(parse_group_by("process") == GroupBy::kProcess);
  CHECK(parse_group_by("rank") == GroupBy::kRank);
  CHECK(parse_group_by("input-shape") == GroupBy::kInputShape);
  CHECK(parse_group_by("input_shape") == GroupBy::kInputShape);
  CHECK(parse_group_by("seq") == GroupBy::kSeq);
  CHECK_FALSE(parse_group_by("shape"));
  CHECK(group_by_names().size() == 9);
  CHECK(group_title(GroupBy::kInputShape) == "Input Shapes");
  CHECK(group_title(GroupBy::kRank) == "Rank");
  CHECK(group_title(GroupBy::kName).empty());
  CHECK(group_title(GroupBy::kLaunchConfig) == "Launch Config");
  CHECK(launch_config_text({4096, 1, 1}, {256, 2, 1}, 1024) ==
        "grid=[4096, 1, 1] block=[256, 2, 1] smem=1024");
  const std::string loader = "loader";
  CHECK(thread_text(1234, nullptr) == "1234");
  CHECK(thread_text(1234, &loader) == "1234 (loader)");
  CHECK(process_text(42, "") == "42");
  CHECK(process_text(42, "3") == "42 (rank 3)");
  CHECK(rank_text(42, "3") == "3");
  CHECK(rank_text(42, "") == "pid 42");
}

TEST_CASE("views: names and the rows each shows", "[names]") {
  CHECK(parse_view("ops") == View::kOps);
  CHECK(parse_view("memory") == View::kMemory);
  CHECK_FALSE(parse_view("kernel"));
  CHECK(view_names().size() == 6);
  CHECK(is_key_averages_view(View::kKernels));
  CHECK_FALSE(is_key_averages_view(View::kLaunches));
  Row range;
  range.kind = RowKind::kRange;
  Row memory;
  memory.kind = RowKind::kMemory;
  Row api;
  api.kind = RowKind::kApi;
  Row kernel;
  kernel.kind = RowKind::kGpu;
  kernel.gpu_kind = GpuKind::kKernel;
  Row copy;
  copy.kind = RowKind::kGpu;
  copy.gpu_kind = GpuKind::kMemcpy;
  for (const Row* row : {&range, &memory, &api, &kernel, &copy})
    CHECK(row_in_view(*row, View::kOps));
  CHECK(row_in_view(range, View::kRanges));
  CHECK(row_in_view(memory, View::kRanges));
  CHECK_FALSE(row_in_view(api, View::kRanges));
  CHECK(row_in_view(api, View::kApi));
  CHECK_FALSE(row_in_view(kernel, View::kApi));
  CHECK(row_in_view(kernel, View::kKernels));
  CHECK_FALSE(row_in_view(copy, View::kKernels));
}

TEST_CASE("range text: problems and totals", "[names]") {
  RangeCounts counts;
  CHECK(describe_ranges(counts) == "none");
  CHECK(describe_range_problems(counts).empty());
  counts.push_pop = 3;
  counts.start_end = 1;
  counts.marks = 1;
  CHECK(describe_ranges(counts) == "3 push/pop, 1 start/end, 1 mark");
  counts.unbalanced_pops = 2;
  counts.open_at_exit = 1;
  counts.ends_without_start = 1;
  counts.cross_thread = 1;
  CHECK(describe_range_problems(counts) ==
        "2 unbalanced pops, 1 open at exit (closed at the last timestamp), 1 end without start, "
        "1 ended on another thread");
  CHECK(describe_ranges(counts) ==
        "3 push/pop, 1 start/end, 1 mark; 2 unbalanced pops, 1 open at exit (closed at the last "
        "timestamp), 1 end without start, 1 ended on another thread");
}

}  // namespace
}  // namespace gprof::analysis
