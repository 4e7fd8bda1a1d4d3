// One file's events, collected as the loader hands them out and kept as
// compact fixed-size structs until the file ends, when they are cut
// (event_filter.h), sorted per track and written (trace_writer.h).
//
// Memory per event: an Event (32 bytes) plus its kind's details: 72 bytes
// per API call, 24 per GPU activity (which points at the loader's record, kept
// by the loader until on_file_end returns), 12 per NVTX range.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tools/analysis/interner.h"
#include "tools/analysis/memory_ledger.h"
#include "tools/analysis/profile.h"

namespace gprof::trace {

inline constexpr uint32_t kNoIndex = UINT32_MAX;

// In the order events of one track and time are written: enclosing slices
// first, ranges around the calls they hold.
enum class EventKind : uint8_t {
  kRange,       // a push/pop range: X
  kCall,        // an API call: X, then a flow start per GPU work item
  kGpu,         // a kernel, copy or set: X, then its flow end
  kAsyncBegin,  // a start/end range: b (dur holds the range's length)
  kMark,        // i
  kAsyncEnd,    // e (at the range's end; dur holds its length)
  kCounter,     // C
};

inline bool is_slice(EventKind kind) {
  return kind == EventKind::kRange || kind == EventKind::kCall || kind == EventKind::kGpu;
}

struct Event {
  uint64_t start_ns;  // on the file's clock
  uint64_t dur_ns;
  uint32_t track;  // FileEvents::tracks
  uint32_t ref;    // index into the table of its kind (calls, gpu, ranges, counters)
  EventKind kind;
};
static_assert(sizeof(Event) == 32);

// A thread of the process, a stream of a device, or where a process's or
// device's counters go (tid 0).
struct Track {
  bool gpu;
  uint32_t device;  // gpu only
  uint32_t tid;     // OS thread id, or CUPTI stream id
};

struct CallDetails {
  uint64_t correlation;
  uint64_t stream;
  uint64_t bytes;
  Dim3 grid;
  Dim3 block;
  uint32_t shared_mem;
  uint32_t kernel;     // demangled name in FileEvents::strings; kNoIndex when none
  uint32_t first_gpu;  // its GPU work: gpu[first_gpu, first_gpu + gpu_count)
  uint32_t gpu_count;
  int32_t result;
  ApiId api;
  bool keep;
};

struct GpuDetails {
  const GpuRecord* record;  // the loader's, valid until on_file_end returns
  const std::string* name;  // likewise
  uint32_t call;            // CallDetails index; kNoIndex when unpaired
  bool keep;
};

struct RangeDetails {
  uint32_t name;    // in FileEvents::strings
  uint32_t domain;  // in FileEvents::strings; Interner::kEmpty for the default domain
  analysis::RangeKind kind;
  bool open_at_exit;
  bool keep;
};

enum class Counter : uint8_t { kDeviceMemory, kHostMemory, kGpuBusy };

struct CounterSample {
  double value;   // bytes, or percent busy
  uint32_t call;  // the call that moved memory; kNoIndex for GPU busy
  Counter counter;
};

class FileEvents : public analysis::ProfileVisitor {
 public:
  void on_file_begin(uint32_t file, const std::string& path) override;
  void on_string(uint32_t file, const pb::StringEntry& entry) override;
  void on_api(const analysis::ApiCall& call) override;
  void on_range(const analysis::RangeSpan& span) override;
  void on_gpu(const analysis::GpuActivity& activity) override;
  void on_launch(const analysis::Launch& launch) override;

  // Adds the memory counters' samples (from the calls that allocated and
  // freed). Call once, after the file's calls are in and before events are
  // reordered.
  void add_memory_counters();
  uint32_t track(bool gpu, uint32_t device, uint32_t tid);
  void add_counter(uint32_t track, uint64_t time_ns, Counter counter, double value,
                   uint32_t call = kNoIndex);

  std::vector<Event> events;
  std::vector<Track> tracks;
  std::vector<CallDetails> calls;  // by ApiCall::index
  std::vector<GpuDetails> gpu;
  std::vector<RangeDetails> ranges;
  std::vector<CounterSample> counters;
  std::unique_ptr<analysis::Interner> strings;

 private:
  uint32_t demangled(const std::string* kernel);
  void add_gpu(const analysis::GpuActivity& activity, uint32_t call);

  std::unordered_map<uint64_t, uint32_t> track_index_;
  std::unordered_map<const std::string*, uint32_t> kernels_;  // mangled -> demangled id
  std::unordered_map<uint32_t, uint32_t> domains_;            // file's id -> strings id
  analysis::AllocationLedger ledger_;
};

}  // namespace gprof::trace
