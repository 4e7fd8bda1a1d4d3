// One sidecar file's records as rows, written while the streaming reader
// hands them out: API calls, GPU activities and external correlations go
// straight to their tables, so memory does not grow with them. NVTX events
// are paired into ranges as they stream past (analysis/model/range_stream.h, the rules
// of analysis/nvtx_ranges.h that `report` pairs by): a push/pop range is
// written at its pop and a mark at once, with the eventId of its place in the
// order of opening; start/end events, which pair across threads, wait in
// spilling sorters for finish(). Memory holds the open ranges only.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/read/reader.h"
#include "tools/analysis/model/nvtx_ranges.h"
#include "tools/analysis/model/range_stream.h"
#include "tools/analysis/read/file_facts.h"
#include "tools/analysis/read/profile.h"
#include "tools/export/correlation_ids.h"
#include "tools/export/inserts.h"
#include "tools/export/string_ids.h"

namespace gprof::exporter {

class FileRows : public RecordVisitor {
 public:
  // `next_event_id`: NVTX_EVENTS.eventId is unique in the database, so the
  // files share one counter.
  FileRows(Inserts& inserts, StringIds& strings, int64_t global_pid, int64_t& next_event_id,
           analysis::FileInfo& info);

  void on_header(const pb::FileHeader& header) override;
  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) override;
  void on_string(const pb::StringEntry& entry) override;
  void on_api(const ApiRecord& record) override;
  void on_range(const RangeEvent& event) override;
  void on_gpu(const GpuRecord& record) override;
  void on_external_correlation(uint64_t correlation, uint64_t external_id) override;
  void on_cupti(const pb::CuptiStatus& status) override;
  void on_footer(const pb::Footer& footer) override;
  bool wants_more() override { return sqlite_error_.empty(); }

  // SQLite's message when a row could not be written (disk full...): the
  // reader would take an exception from a visitor for a bad input file, so
  // the rows stop the reading instead and the caller throws this.
  const std::string& sqlite_error() const { return sqlite_error_; }

  // Once the file is read: the NVTX ranges still open, start/end ranges,
  // domains and thread names.
  void finish();

  // The CUPTI ids the file recorded (correlation_ids.h): the calls', and
  // the external correlations' CUPTI side.
  IdSpan call_ids() const { return call_ids_; }
  IdSpan external_ids() const { return external_ids_; }
  // Whether some pushed id is below kPushedIdBase (an older gprof's): see
  // analysis/read/call_pairing.h's mode().
  bool small_pushed_ids() const { return small_pushed_ids_; }

 private:
  struct KernelNames {
    int64_t demangled, short_name, mangled;
  };
  const KernelNames& kernel_names(uint32_t kernel);
  const std::string* text(int kind, uint32_t id) const { return facts_.text(kind, id); }
  int64_t api_name(ApiId api, std::string_view display);
  void seen(uint64_t start_ns, uint64_t end_ns) { facts_.seen(start_ns, end_ns); }
  void gpu_common(BatchInsert& insert, const GpuRecord& r);
  void write_api(const ApiRecord& record);
  void write_gpu(const GpuRecord& record);
  void write_range(const analysis::Range& range, uint64_t opened);
  int64_t row_name(uint32_t name, uint32_t domain);
  void name_late_ranges();
  template <typename F>
  void guarded(F&& write);

  Inserts& in_;
  StringIds& strings_;
  int64_t global_pid_;
  int64_t& next_event_id_;
  analysis::FileInfo& info_;
  analysis::FileFacts facts_;
  std::unordered_map<uint32_t, KernelNames> kernel_ids_;
  std::unordered_map<uint16_t, int64_t> api_names_;
  analysis::RangeStream ranges_;
  int64_t first_event_id_;  // the file's first range's eventId
  struct FirstUse {
    uint64_t opened;
    uint64_t start_ns;
    uint32_t tid;
  };
  std::map<uint32_t, FirstUse> domains_;             // domain -> its first range
  std::unordered_map<uint64_t, int64_t> row_names_;  // (domain, name) -> string id
  struct LateName {
    int64_t event_id;
    uint32_t name, domain;
  };
  // Ranges written before their NVTX message or domain name was read: named
  // again by finish(), as they would have been had they waited for it.
  std::vector<LateName> late_names_;
  IdSpan call_ids_;
  IdSpan external_ids_;
  bool small_pushed_ids_ = false;
  std::string sqlite_error_;
};

}  // namespace gprof::exporter
