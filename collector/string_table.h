// NVTX messages, domain and category names become small integer ids the
// first time they are seen (DESIGN.md §2.1): later events carry only the id.
// Lock-free, like the kernel registry; the text is copied into an arena,
// since the program may free or reuse its buffer as soon as the call returns.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gprof {

enum class StringClass : uint8_t { kNvtx = 3, kDomain = 4, kCategory = 5 };

// Bits a capture window sets on a string when it is first interned, so that
// the hot path tests a flag instead of comparing text.
enum StringFlag : uint8_t {
  kStringStep = 1u << 0,     // names a training step (GPROF_STEP_RANGE, ProfilerStep*, step*)
  kStringCapture = 1u << 1,  // names the GPROF_CAPTURE=nvtx:NAME range
};

class StringTable {
 public:
  static constexpr uint32_t kFirstId = 1u << 28;  // above kernel and GPU-name ids
  static constexpr uint32_t kMaxStrings = 1u << 16;
  using Classifier = uint8_t (*)(const char* text, size_t size, StringClass cls);

  // The id of `text` (size bytes, no NUL needed); 0 when the table is full.
  uint32_t intern(const char* text, size_t size, StringClass cls);
  uint8_t flags(uint32_t id) const;
  void set_classifier(Classifier classifier) { classifier_ = classifier; }

  // Writer side: ids [kFirstId, end()) are published in order.
  uint32_t end() const { return kFirstId + published_.load(std::memory_order_acquire); }
  const char* text(uint32_t id) const;
  StringClass string_class(uint32_t id) const;

 private:
  struct Slot {
    std::atomic<uint64_t> hash{0};
    std::atomic<uint32_t> index{0};  // entry index + 1, 0 while being filled
  };
  struct Entry {
    std::atomic<const char*> text{nullptr};
    uint32_t size = 0;
    StringClass cls = StringClass::kNvtx;
    uint8_t flags = 0;
  };
  static constexpr uint32_t kSlots = kMaxStrings * 2;
  static constexpr size_t kArenaBytes = 8u << 20;

  uint32_t add(uint64_t hash, Slot& slot, const char* text, size_t size, StringClass cls);
  bool same(uint32_t index, const char* text, size_t size, StringClass cls) const;

  Slot slots_[kSlots];
  Entry entries_[kMaxStrings];
  std::atomic<uint32_t> reserved_{0};
  std::atomic<uint32_t> published_{0};
  char arena_[kArenaBytes] = {};
  std::atomic<size_t> arena_used_{0};
  Classifier classifier_ = nullptr;
};

}  // namespace gprof
