// The pure parts of the export: kernel short names, nsys's serialized ids
// and enum numbering.
#include <catch2/catch.hpp>

#include "tools/export/enum_tables.h"
#include "tools/export/global_ids.h"
#include "tools/export/kernel_names.h"

namespace gprof::exporter {

TEST_CASE("short kernel names drop return type, scope, templates and parameters") {
  CHECK(short_kernel_name("square(float*, int)") == "square");
  CHECK(short_kernel_name("vector_add") == "vector_add");
  CHECK(short_kernel_name("void at::native::vectorized_elementwise_kernel<4, "
                          "at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, "
                          "at::native::FillFunctor<float>, std::array<char*, 1ul>)") ==
        "vectorized_elementwise_kernel");
  // Parentheses inside template arguments and an anonymous namespace.
  CHECK(short_kernel_name("void (anonymous namespace)::fill<(int)128>(float*)") == "fill");
  CHECK(short_kernel_name("void ns::k<ns::Op<(bool)1> >()") == "k");
  // Nothing that looks like an identifier is left: the whole name.
  CHECK(short_kernel_name("<unknown kernel>") == "<unknown kernel>");
  CHECK(short_kernel_name("") == "");
}

TEST_CASE("globalPid and globalTid decode as nsys's queries decode them") {
  const int64_t pid = global_pid(4194303, 0);  // the largest Linux pid
  CHECK(pid / 0x1000000 % 0x1000000 == 4194303);
  const int64_t tid = global_tid(pid, 4194000);
  CHECK(tid / 0x1000000 % 0x1000000 == 4194303);
  CHECK(tid % 0x1000000 == 4194000);
  CHECK(tid - tid % 0x1000000 == pid);  // the thread's process, as the doc's queries join

  GlobalPids pids;
  const int64_t first = pids.next(42);
  const int64_t second = pids.next(42);  // another host, or a reused pid
  const int64_t other = pids.next(43);
  CHECK(first != second);
  CHECK(first / 0x1000000 % 0x1000000 == 42);
  CHECK(second / 0x1000000 % 0x1000000 == 42);
  CHECK(second >> 48 == 1);
  CHECK(other == global_pid(43, 0));
  CHECK(second > 0);
}

TEST_CASE("CUPTI memory kinds become nsys's ENUM_CUDA_MEM_KIND ids") {
  CHECK(nsys_memory_kind(1) == 0);  // pageable
  CHECK(nsys_memory_kind(2) == 1);  // pinned
  CHECK(nsys_memory_kind(3) == 2);  // device
  CHECK(nsys_memory_kind(7) == 6);  // managed static
  CHECK(nsys_memory_kind(0) == 7);  // unknown
  CHECK(nsys_memory_kind(200) == 7);
}

}  // namespace gprof::exporter
