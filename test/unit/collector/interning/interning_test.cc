#include <sys/mman.h>
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "collector/interning/kernel_registry.h"
#include "collector/interning/readonly_text.h"
#include "collector/interning/string_table.h"
#include "collector/interning/torch_message.h"
#include "collector/queues/queue_records.h"

using namespace gprof;

namespace {

std::string split(const std::string& text, TorchMessage& m) {
  std::vector<char> out(text.size() + 1);
  if (!split_torch_message(text.data(), text.size(), out.data(), m)) return "<not torch>";
  return std::string(out.data(), m.size);
}

}  // namespace

TEST_CASE("emit_nvtx messages split into a stable name and their numbers") {
  TorchMessage m;
  CHECK(split("aten::add, seq = 12, op_id = 34, sizes = [[2, 3], [2, 3]]", m) ==
        "aten::add, sizes = [[2, 3], [2, 3]]");
  CHECK(m.seq == 13);  // stored + 1: seq 0 is a real sequence number
  CHECK(m.op_id == 34);
  CHECK(split("aten::mm, seq = 0, op_id = 7, sizes = [[8, 16], [16, 4]], input_op_ids = [(5, 0)]",
              m) == "aten::mm, sizes = [[8, 16], [16, 4]]");
  CHECK(m.seq == 1);
  CHECK(m.op_id == 7);
  CHECK(split("aten::empty, op_id = 3", m) == "aten::empty");
  CHECK(m.seq == 0);
  CHECK(m.op_id == 3);
  CHECK(split("AddBackward0, seq = 12", m) == "AddBackward0");
  CHECK(m.seq == 13);
  CHECK(split("MulBackward0, stashed seq = 5, op_id = 9", m) == "MulBackward0");
  CHECK(m.seq == 6);
  CHECK(m.op_id == 9);
  // Not torch's: left whole.
  CHECK(split("forward", m) == "<not torch>");
  CHECK(split("load, batch 3", m) == "<not torch>");
  CHECK(split("x, seq = y", m) == "<not torch>");
}

TEST_CASE("a full string table hands out kInlineName, never a wrong or empty id") {
  static StringTable table;
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < StringTable::kMaxStrings + 1000; ++i) {
    const std::string s = "name " + std::to_string(i);
    ids.push_back(table.intern(s.data(), s.size(), StringClass::kNvtx));
  }
  uint32_t inline_names = 0;
  for (uint32_t i = 0; i < ids.size(); ++i) {
    REQUIRE(ids[i] != 0);
    if (ids[i] == kInlineName) {
      ++inline_names;
      continue;
    }
    CHECK(std::string(table.text(ids[i])) == "name " + std::to_string(i));
  }
  // Bounded probes give up before the table is quite full; all the rest
  // go with their events.
  CHECK(inline_names >= 1000);
  CHECK(inline_names < 1000 + StringTable::kMaxStrings / 4);
  CHECK(table.reserved() <= StringTable::kMaxStrings);
  // A known name still has its id.
  const std::string first = "name 0";
  CHECK(table.intern(first.data(), first.size(), StringClass::kNvtx) == ids[0]);
}

TEST_CASE("kernel registry maps stubs and handles to stable ids") {
  static KernelRegistry registry;
  int stub_a = 0, stub_b = 0, handle_a = 0;
  uint32_t a = registry.register_function(&stub_a, "_Z1av");
  uint32_t b = registry.register_function(&stub_b, "_Z1bv");
  CHECK(a == 1);
  CHECK(b == 2);
  CHECK(registry.id_for_function(&stub_a) == a);
  CHECK(registry.id_for_handle(&stub_b) == b);  // a stub where a handle is allowed
  registry.register_handle(&handle_a, &stub_a);
  CHECK(registry.id_for_handle(&handle_a) == a);
  CHECK(registry.id_for_function(&handle_a) == 0);
  CHECK(registry.reserved() == 3);
  CHECK(registry.ready(1));
  CHECK(registry.ready(2));
  CHECK_FALSE(registry.ready(3));
  CHECK(std::string(registry.name(1)) == "_Z1av");
}

TEST_CASE("kernel registration from many threads makes every name ready") {
  static KernelRegistry registry;
  static int stubs[8][100];
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 100; ++i) {
        std::string name = "k" + std::to_string(t) + "_" + std::to_string(i);
        registry.register_function(&stubs[t][i], name.c_str());
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(registry.reserved() == 801);
  for (int t = 0; t < 8; ++t) {
    for (int i = 0; i < 100; ++i) {
      uint32_t id = registry.id_for_function(&stubs[t][i]);
      REQUIRE(id != 0);
      CHECK(registry.ready(id));
      CHECK(std::string(registry.name(id)) == "k" + std::to_string(t) + "_" + std::to_string(i));
    }
  }
}

TEST_CASE("tens of thousands of kernels all get ids and names") {
  static KernelRegistry registry;
  static char stubs[60000];
  for (int i = 0; i < 60000; ++i) {
    const std::string name = "_Z6kernelILi" + std::to_string(i) + "EEvPf";
    REQUIRE(registry.register_function(&stubs[i], name.c_str()) != 0);
  }
  CHECK(std::string(registry.name(registry.id_for_function(&stubs[59999]))) ==
        "_Z6kernelILi59999EEvPf");
}

TEST_CASE("the pointer cache compares a word at a time, also at the end of a mapped page") {
  // Two pages, the second inaccessible: a text that ends at the first page's
  // last byte must be compared without touching the second.
  const size_t page = 4096;
  auto* pages = static_cast<char*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(pages != MAP_FAILED);
  REQUIRE(mprotect(pages + page, page, PROT_NONE) == 0);
  static StringTable table;  // large: not on the stack
  for (size_t length = 0; length <= 40; ++length) {
    INFO("length " << length);
    std::string text(length, 'x');
    for (size_t i = 0; i < length; ++i) text[i] = static_cast<char>('a' + (i * 7) % 26);
    const uint32_t id = table.intern(text.data(), length, StringClass::kNvtx);
    REQUIRE(id >= StringTable::kFirstId);
    // The same text at every offset up to the page end, NUL on the last byte.
    for (size_t end_gap = 0; end_gap < 16; ++end_gap) {
      char* at = pages + page - 1 - end_gap - length;
      std::memcpy(at, text.data(), length + 1);
      table.remember(at, length, id);
      CHECK(table.cached(at) == id);
      if (length > 0) {
        at[length - 1] ^= 1;  // the last character differs
        CHECK(table.cached(at) == 0);
        at[length - 1] ^= 1;
        at[0] ^= 1;  // the first
        CHECK(table.cached(at) == 0);
        at[0] ^= 1;
      }
      if (end_gap > 0) {  // longer than the stored text
        at[length] = 'z';
        CHECK(table.cached(at) == 0);
        at[length] = '\0';
      }
    }
    // The buffer reused for a shorter text that ends at the page end: its
    // words past the NUL are not read (the second page would fault).
    for (size_t shorter = 0; shorter < length; ++shorter) {
      char* at = pages + page - 1 - shorter;
      std::memcpy(at, text.data(), shorter);
      at[shorter] = '\0';
      table.remember(at, shorter, id);
      CHECK(table.cached(at) == 0);
    }
  }
  munmap(pages, 2 * page);
}

TEST_CASE("the pointer cache holds only names without flags, so a hit needs no flag test") {
  static StringTable table;
  table.set_classifier([](const char* text, size_t size, StringClass) -> uint8_t {
    return std::string_view(text, size) == "ProfilerStep#1" ? kStringStep : 0;
  });
  static const char step[] = "ProfilerStep#1";
  static const char plain[] = "forward";
  const uint32_t step_id = table.intern(step, sizeof step - 1, StringClass::kNvtx);
  const uint32_t plain_id = table.intern(plain, sizeof plain - 1, StringClass::kNvtx);
  REQUIRE(table.flags(step_id) == kStringStep);
  table.remember(step, sizeof step - 1, step_id);
  table.remember(plain, sizeof plain - 1, plain_id);
  CHECK(table.cached(step) == 0);
  CHECK(table.cached(plain) == plain_id);
}

TEST_CASE("read-only text is found in the loaded objects' read-only segments only") {
  static const char literal[] = "a literal in .rodata";
  char stack[] = "a copy on the stack";
  std::string heap(64, 'h');
  set_dlclose_hooked(false);
  CHECK_FALSE(in_readonly_segment(literal, sizeof literal));  // no dlclose hook: never
  set_dlclose_hooked(true);
  CHECK(in_readonly_segment(literal, sizeof literal));
  CHECK(in_readonly_segment("another literal", 16));
  CHECK_FALSE(in_readonly_segment(stack, sizeof stack));
  CHECK_FALSE(in_readonly_segment(heap.data(), heap.size()));
  set_dlclose_hooked(false);
}

TEST_CASE("a writable text's gap between read-only segments answers for the next text in it") {
  static const char literal[] = "a literal in .rodata";
  std::string heap(64, 'h');
  char stack[] = "a copy on the stack";
  set_dlclose_hooked(true);
  REQUIRE(in_readonly_segment(literal, sizeof literal));  // a scan of the loaded objects
  WritableGap gap;
  CHECK_FALSE(in_writable_gap(gap, heap.data(), 8));  // none yet
  CHECK_FALSE(in_scanned_readonly_segment(heap.data(), heap.size(), &gap));
  REQUIRE(gap.scan == g_readonly_scan.load());
  CHECK(gap.begin <= reinterpret_cast<uintptr_t>(heap.data()));
  CHECK(reinterpret_cast<uintptr_t>(heap.data()) + heap.size() <= gap.end);
  CHECK(in_writable_gap(gap, heap.data() + 10, 20));
  // A read-only text is never in a writable gap, whichever gap a thread kept.
  WritableGap stack_gap;
  CHECK_FALSE(in_scanned_readonly_segment(stack, sizeof stack, &stack_gap));
  CHECK(in_writable_gap(stack_gap, stack, sizeof stack));
  CHECK_FALSE(in_writable_gap(gap, literal, sizeof literal));
  CHECK_FALSE(in_writable_gap(stack_gap, literal, sizeof literal));
  // A read-only text leaves the gap as it was.
  const WritableGap kept = gap;
  CHECK(in_scanned_readonly_segment(literal, sizeof literal, &gap));
  CHECK((gap.scan == kept.scan && gap.begin == kept.begin && gap.end == kept.end));
  // Past the gap's end, or from another scan: not answered.
  if (gap.end != UINTPTR_MAX)
    CHECK_FALSE(in_writable_gap(gap, reinterpret_cast<const void*>(gap.end - 4), 8));
  WritableGap old = gap;
  old.scan = gap.scan - 1;
  CHECK_FALSE(in_writable_gap(old, heap.data(), 8));
  set_dlclose_hooked(false);
}

TEST_CASE("the pointer cache trusts read-only text until a dlclose, and compares the rest") {
  static StringTable table;
  static const char literal[] = "forward";
  static char buffer[] = "backward";
  const uint32_t literal_id = table.intern(literal, sizeof literal - 1, StringClass::kNvtx);
  const uint32_t buffer_id = table.intern(buffer, sizeof buffer - 1, StringClass::kNvtx);
  set_dlclose_hooked(true);
  table.remember(literal, sizeof literal - 1, literal_id);
  table.remember(buffer, sizeof buffer - 1, buffer_id);
  set_dlclose_hooked(false);
  CHECK(table.cached(literal) == literal_id);
  CHECK(table.cached(buffer) == buffer_id);
  buffer[0] = 'B';  // writable: compared, so a changed text misses
  CHECK(table.cached(buffer) == 0);
  buffer[0] = 'b';
  // A dlclose forgets the trusted pointers only.
  table.forget_readonly();
  CHECK(table.cached(literal) == 0);
  CHECK(table.cached(buffer) == buffer_id);
}
