// Golden strings produced by torch.autograd.profiler_util._build_table's
// formatting rules (Python str.format, "{: >W}  " per column) on the same rows.
#include "tools/analysis/render/table.h"
#include "tools/analysis/render/table_markdown.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace gprof::analysis {
namespace {

Row row(std::string name, uint64_t count, uint64_t self_cpu, uint64_t cpu_total,
        RowKind kind = RowKind::kApi) {
  Row r;
  r.name = std::move(name);
  r.kind = kind;
  r.count = count;
  r.self_cpu_ns = self_cpu;
  r.cpu_total_ns = cpu_total;
  return r;
}

std::vector<Row> basic_rows() {
  return {row("cudaLaunchKernel", 3, 1500, 1500), row("cudaMalloc", 1, 2'500'000, 2'500'000),
          row("cudaDeviceSynchronize", 2, 1'500'000'000, 1'500'000'000),
          row("square(float*, int)", 3, 0, 0, RowKind::kGpu)};
}

TEST_CASE("table: torch layout, sorted by CPU total", "[table]") {
  TableOptions options;
  options.sort = SortKey::kCpuTotal;
  CHECK(
      render_table(basic_rows(), options) ==
      R"(-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
                     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
    cudaDeviceSynchronize        99.83%        1.500s        99.83%        1.500s     750.000ms             2  
               cudaMalloc         0.17%       2.500ms         0.17%       2.500ms       2.500ms             1  
         cudaLaunchKernel         0.00%       1.500us         0.00%       1.500us       0.500us             3  
      square(float*, int)         0.00%       0.000us         0.00%       0.000us       0.000us             3  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 1.503s
)");
}

TEST_CASE("table: the limit cuts rows, not the totals", "[table]") {
  TableOptions options;
  options.row_limit = 2;
  CHECK(
      render_table(basic_rows(), options) ==
      R"(-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
                     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
         cudaLaunchKernel         0.00%       1.500us         0.00%       1.500us       0.500us             3  
               cudaMalloc         0.17%       2.500ms         0.17%       2.500ms       2.500ms             1  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 1.503s
)");
}

TEST_CASE("table: a forced time unit overflows the column rather than cutting", "[table]") {
  TableOptions options;
  options.sort = SortKey::kSelfCpu;
  options.time_unit = TimeUnit::kMicroseconds;
  CHECK(
      render_table(basic_rows(), options) ==
      R"(-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
                     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
    cudaDeviceSynchronize        99.83%  1500000.000us        99.83%  1500000.000us  750000.000us             2  
               cudaMalloc         0.17%    2500.000us         0.17%    2500.000us    2500.000us             1  
         cudaLaunchKernel         0.00%       1.500us         0.00%       1.500us       0.500us             3  
      square(float*, int)         0.00%       0.000us         0.00%       0.000us       0.000us             3  
-------------------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 1502501.500us
)");
}

// Only a name that does not fit is cut and marked (torch marks every name from
// width - 3 on, cut or not: issue 18).
TEST_CASE("table: long names are cut to the width with ...", "[table]") {
  TableOptions options;
  options.max_name_width = 20;
  const std::vector<Row> rows = {row(std::string(16, 'a'), 1, 1000, 1000),
                                 row(std::string(17, 'b'), 1, 2000, 2000),
                                 row(std::string(30, 'c'), 1, 3000, 3000)};
  CHECK(
      render_table(rows, options) ==
      R"(--------------------  ------------  ------------  ------------  ------------  ------------  ------------  
                Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  
--------------------  ------------  ------------  ------------  ------------  ------------  ------------  
    aaaaaaaaaaaaaaaa        16.67%       1.000us        16.67%       1.000us       1.000us             1  
   bbbbbbbbbbbbbbbbb        33.33%       2.000us        33.33%       2.000us       2.000us             1  
ccccccccccccccccc...        50.00%       3.000us        50.00%       3.000us       3.000us             1  
--------------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 6.000us
)");
}

TEST_CASE("table: the name column is the longest name + 4 when that is narrower", "[table]") {
  const std::string text = render_table({row("x", 2, 0, 0, RowKind::kGpu)}, TableOptions{});
  CHECK(
      text ==
      R"(-----  ------------  ------------  ------------  ------------  ------------  ------------  
 Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  
-----  ------------  ------------  ------------  ------------  ------------  ------------  
    x           NaN       0.000us           NaN       0.000us       0.000us             2  
-----  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 0.000us
)");
}

TEST_CASE("table: GPU columns appear once a row has GPU time", "[table]") {
  Row launch = row("cudaLaunchKernel", 2, 4000, 4000);
  Row kernel = row("square(float*, int)", 2, 0, 0, RowKind::kGpu);
  kernel.self_device_ns = 3000;
  kernel.device_total_ns = 3000;
  TableOptions options;
  options.sort = SortKey::kCpuTotal;
  CHECK(
      render_table({launch, kernel}, options) ==
      R"(-----------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
                   Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg     Self CUDA   Self CUDA %    CUDA total  CUDA time avg    # of Calls  
-----------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
       cudaLaunchKernel       100.00%       4.000us       100.00%       4.000us       2.000us       0.000us         0.00%       0.000us       0.000us             2  
    square(float*, int)         0.00%       0.000us         0.00%       0.000us       0.000us       3.000us       100.00%       3.000us       1.500us             2  
-----------------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  
Self CPU time total: 4.000us
Self CUDA time total: 3.000us
)");
}

TEST_CASE("table: memory columns when asked", "[table]") {
  Row alloc = row("cudaMallocHost", 1, 1000, 1000);
  alloc.cpu_mem = alloc.self_cpu_mem = 3 << 20;
  TableOptions options;
  options.profile_memory = true;
  const std::string text = render_table({alloc}, options);
  CHECK(text.find("       CPU Mem  Self CPU Mem    # of Calls  \n") != std::string::npos);
  CHECK(text.find("       3.00 MB       3.00 MB             1  \n") != std::string::npos);
  CHECK(text.find("CUDA Mem") == std::string::npos);
}

TEST_CASE("markdown: a cell escapes syntax and stays on one line", "[table]") {
  CHECK(escape_markdown("fo\r|w\nd") == "fo \\|w d");
  CHECK(escape_markdown("a_b<T>*") == "a\\_b\\<T\\>\\*");
}

TEST_CASE("markdown: a name is a code span GitHub links and mentions nothing in", "[table]") {
  CHECK(markdown_code("ProfilerStep#12 @user :x:") == "`ProfilerStep#12 @user :x:`");
  CHECK(markdown_code("void k<a_b*>(int&)") == "`void k<a_b*>(int&)`");
  // '|' is escaped even in a span; a line break is a space.
  CHECK(markdown_code("a|b\nc") == "`a\\|b c`");
  CHECK(markdown_code("a\tb\x01"
                      "c\x7f") == "`a b c `");
  CHECK(escape_markdown("a\x1b[31mb") == "a \\[31mb");
  // The fence outgrows the backticks inside; one at an end is padded.
  CHECK(markdown_code("a``b") == "```a``b```");
  CHECK(markdown_code("`q") == "`` `q ``");
  CHECK(markdown_code(" x ") == "`  x  `");
  CHECK(markdown_code("").empty());
}

TEST_CASE("markdown: names and group values are code spans, numbers are not", "[table]") {
  Row kernel = row("k<1>", 2, 0, 0);
  kernel.group = "stream #7";
  TableOptions options;
  options.group_title = "Stream";
  const std::string text = render_markdown_table({kernel}, options);
  CHECK(text.find("| Name | Self CPU % |") == 0);
  CHECK(text.find("| `k<1>` | ") != std::string::npos);
  CHECK(text.find(" | 2 | `stream #7` |\n") != std::string::npos);
}

TEST_CASE("table: no rows, no table", "[table]") {
  CHECK(render_table({}, TableOptions{}).empty());
}

TEST_CASE("table: names are measured in characters, not bytes", "[table]") {
  TableOptions options;
  options.max_name_width = 8;
  const std::string text = render_table({row("\xc3\xa9t\xc3\xa9", 1, 1, 1)}, options);
  // "été" is 3 characters: the column is 7 wide, padded with 4 spaces.
  CHECK(text.find("\n    \xc3\xa9t\xc3\xa9  ") != std::string::npos);
  // Eight characters fit; nine are cut to 8 - 3 and marked.
  std::string eight, nine;
  for (int i = 0; i < 8; ++i) eight += "\xc3\xa9";
  nine = eight + "\xc3\xa9";
  const std::string fits = render_table({row(eight, 1, 1, 1)}, options);
  CHECK(fits.find("\n" + eight + "  ") != std::string::npos);
  const std::string cut = render_table({row(nine, 1, 1, 1)}, options);
  CHECK(cut.find("\n" + eight.substr(0, 10) + "...  ") != std::string::npos);
}

}  // namespace
}  // namespace gprof::analysis
