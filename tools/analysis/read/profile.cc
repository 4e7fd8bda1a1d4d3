#include "tools/analysis/read/profile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "formats/loss_reasons.h"
#include "tools/analysis/read/call_pairing.h"
#include "tools/analysis/read/file_facts.h"
#include "tools/analysis/read/gpu_names.h"
#include "tools/analysis/read/range_names.h"
#include "tools/analysis/render/format.h"

namespace gprof::analysis {
namespace {

// Adapts the reader's per-file callbacks: keeps the file's kernel and NVTX
// names (string ids are per file), hands resolved calls on as they come, and
// keeps the GPU records and NVTX events until the end of the file, when they
// can be paired.
class FileAdapter : public RecordVisitor {
 public:
  FileAdapter(uint32_t file, FileInfo& info, ProfileVisitor& out)
      : file_(file), info_(info), out_(out), facts_(info) {}

  void on_header(const pb::FileHeader& header) override {
    facts_.header(header);
    out_.on_header(file_, header);
  }

  void on_string(const pb::StringEntry& entry) override {
    facts_.string(entry);
    out_.on_string(file_, entry);
  }

  void on_api(const ApiRecord& record) override {
    const ApiInfo* info = api_info(record.api);
    if (info == nullptr) return;  // the reader skips unknown APIs; be safe anyway
    const std::string* kernel = nullptr;
    if (info->fields & kFieldLaunch) kernel = kernel_name(record.kernel);
    seen(record.start_ns, record.end_ns);
    if (info->category == ApiCategory::kLaunch)
      launch_starts_.emplace_back(record.start_ns, calls_);
    pairing_.add_call(
        CallRef{record.correlation, record.start_ns, record.end_ns, calls_, record.api});
    out_.on_api(ApiCall{file_, record, *info, kernel, calls_++});
  }

  void on_range(const RangeEvent& event) override {
    if (event.op != RangeOp::kNameThread && event.op != RangeOp::kNameCategory)
      seen(event.time_ns, event.time_ns);
    ranges_.add(event);
  }

  void on_gpu(const GpuRecord& record) override {
    // The shim drops records CUPTI could not time; never show them as
    // zero-length work at time 0 should one get through.
    if (facts_.untimed(record.start_ns, record.end_ns)) return;
    seen(record.start_ns, record.end_ns);
    pairing_.add_gpu(PairedGpu{record.correlation, record.start_ns, gpu_.size()});
    gpu_.push_back(record);
  }

  void on_external_correlation(uint64_t correlation, uint64_t external_id) override {
    pairing_.add_external(correlation, external_id);
  }

  void on_cupti(const pb::CuptiStatus& status) override { facts_.cupti(status); }

  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) override {
    facts_.devices(devices);
  }

  void on_footer(const pb::Footer& footer) override {
    facts_.footer(footer);
    out_.on_footer(file_, footer);
  }

  // After the reader is done with the file: pairs and hands out its ranges
  // and GPU records.
  bool windowed() const { return info_.header && has_capture_window(*info_.header); }

  void finish() {
    finish_ranges();
    // Each GPU record's call: the calls that issued some, in correlation
    // order (their addresses are too), and for each record the index of its
    // call (kNoCall: none).
    std::vector<uint32_t> call_of(gpu_.size(), kNoCall);
    struct Visit {
      std::vector<CallRef>& owners;
      std::vector<uint32_t>& call_of;
      bool issued_any = false;
      void owner(const CallRef& call) {
        owners.push_back(call);
        issued_any = false;
      }
      void issued(const PairedGpu& g) {
        call_of[g.seq] = static_cast<uint32_t>(owners.size() - 1);
        issued_any = true;
      }
      void owned() {
        if (!issued_any) owners.pop_back();
      }
      void other(const CallRef&) {}
      void unpaired(const PairedGpu&) {}
    } visit{owners_, call_of};
    pairing_.pair(pairing_.mode(info_.cupti), visit);
    GpuCounts& counts = info_.gpu;
    const CaptureWindows window(windowed(), info_.cupti);
    counts.external_correlations = pairing_.external_count();
    std::vector<GpuActivity> activities;
    activities.reserve(gpu_.size());
    for (size_t i = 0; i < gpu_.size(); ++i) {
      const GpuRecord& r = gpu_[i];
      const std::string* kernel = r.kind == GpuKind::kKernel ? kernel_name(r.kernel) : nullptr;
      const CallRef* call = call_of[i] != kNoCall ? &owners_[call_of[i]] : nullptr;
      if (call == nullptr && window.outside(r.start_ns)) {
        ++counts.outside_window;
        continue;
      }
      activities.push_back(GpuActivity{file_, &r, &row_name(r, kernel), kernel, call});
      counts.count(r.kind);
      if (call == nullptr) ++counts.unpaired;
    }
    counts.records = activities.size();
    for (const GpuActivity& activity : activities) out_.on_gpu(activity);

    // Group the paired work by call (by address: correlation order), each
    // group by start time.
    std::vector<const GpuActivity*> work;
    for (const GpuActivity& activity : activities)
      if (activity.call != nullptr && activity.is_work()) work.push_back(&activity);
    std::stable_sort(work.begin(), work.end(), [](const GpuActivity* a, const GpuActivity* b) {
      if (a->call != b->call) return a->call < b->call;
      return a->record->start_ns < b->record->start_ns;
    });
    count_gaps(activities, work);
    for (auto first = work.begin(); first != work.end();) {
      const CallRef* call = (*first)->call;
      auto last =
          std::find_if(first, work.end(), [&](const GpuActivity* a) { return a->call != call; });
      if (const ApiInfo* info = api_info(call->api))
        out_.on_launch(
            Launch{file_, *call, *info, std::span<const GpuActivity* const>(first, last)});
      first = last;
    }
  }

 private:
  // GapCounts for each interval the CUPTI status records.
  void count_gaps(const std::vector<GpuActivity>& activities,
                  const std::vector<const GpuActivity*>& work) {
    if (!info_.cupti || info_.cupti->gaps_size() == 0) return;
    std::unordered_set<uint32_t> with_gpu;
    for (const GpuActivity* a : work) with_gpu.insert(a->call->index);
    for (const pb::CuptiGap& gap : info_.cupti->gaps()) {
      GapCounts c;
      const uint64_t end = gap.end_ns() != 0 ? gap.end_ns() : UINT64_MAX;
      for (const GpuActivity& a : activities) {
        const uint64_t t = a.record->start_ns;
        if (t < gap.start_ns())
          ++c.gpu_before;
        else if (t < end)
          ++c.gpu_during;
        else
          ++c.gpu_after;
      }
      for (const auto& [start, index] : launch_starts_) {
        if (start < gap.start_ns() || start >= end) continue;
        ++c.launches;
        if (!with_gpu.contains(index)) ++c.launches_without_gpu;
      }
      info_.gaps.push_back(c);
    }
  }

  const std::string* string_of(int kind, uint32_t id) const { return facts_.text(kind, id); }

  std::vector<std::pair<uint64_t, uint32_t>> launch_starts_;  // launches: start, call index

  void seen(uint64_t start_ns, uint64_t end_ns) { facts_.seen(start_ns, end_ns); }

  void finish_ranges() {
    // Open ranges end when the process did: at the footer's time when the
    // file has one, else at the last record.
    uint64_t last = info_.last_ns;
    if (info_.footer) last = std::max<uint64_t>(last, info_.footer->end_clock_ns());
    const std::vector<Range> ranges = ranges_.finish(last, info_.ranges);
    for (const auto& [tid, name] : ranges_.thread_names()) {
      const std::string* text = string_of(pb::StringEntry::NVTX, name);
      if (text == nullptr) text = string_of(pb::StringEntry::THREAD, name);
      if (text != nullptr) info_.thread_names[tid] = *text;
    }
    // One name per (message, domain), built once however many calls use it.
    struct Names {
      std::string row;
      std::string input_shapes;
    };
    std::unordered_map<uint64_t, Names> names;
    for (const Range& r : ranges) {
      const uint64_t key = static_cast<uint64_t>(r.domain) << 32 | r.name;
      auto it = names.find(key);
      if (it == names.end()) {
        const std::string* message = string_of(pb::StringEntry::NVTX, r.name);
        Names n{range_row_name(message, string_of(pb::StringEntry::DOMAIN, r.domain)),
                message ? std::string(torch_input_shapes(*message)) : std::string()};
        it = names.emplace(key, std::move(n)).first;
      }
      out_.on_range(RangeSpan{file_, r, it->second.row, it->second.input_shapes});
    }
  }

  const std::string* kernel_name(uint32_t id) const { return facts_.kernel(id); }

  // Names are shared by all records of a kind and kernel (or memory kinds),
  // so that a million launches of one kernel are demangled once.
  const std::string& row_name(const GpuRecord& r, const std::string* kernel) {
    const uint64_t key = gpu_row_name_key(r, kernel != nullptr);
    auto it = names_.find(key);
    if (it == names_.end()) it = names_.emplace(key, gpu_row_name(r, kernel)).first;
    return it->second;
  }

  uint32_t file_;
  FileInfo& info_;
  ProfileVisitor& out_;
  FileFacts facts_;
  std::unordered_map<uint64_t, std::string> names_;
  // What the pairing sorts of a GPU record: gpu_[seq].
  struct PairedGpu {
    uint64_t correlation;
    uint64_t start;
    size_t seq;
    uint64_t start_ns() const { return start; }
    void unwrap(uint64_t id) { correlation = id; }
  };
  static constexpr uint32_t kNoCall = UINT32_MAX;
  std::vector<GpuRecord> gpu_;
  CallPairing<CallRef, PairedGpu> pairing_{SortResources{}};
  // The calls that issued GPU records (finish()): visitors keep pointers to
  // them until the file's end.
  std::vector<CallRef> owners_;
  RangePairing ranges_;
  uint32_t calls_ = 0;
};

}  // namespace

void GpuCounts::count(GpuKind kind) {
  switch (kind) {
    case GpuKind::kKernel:
      ++kernels;
      break;
    case GpuKind::kMemcpy:
      ++copies;
      break;
    case GpuKind::kMemset:
      ++sets;
      break;
    case GpuKind::kSync:
      ++syncs;
      break;
  }
}

// The shim names its window in the header (collector/output/writer_metadata.cc).
bool has_capture_window(const pb::FileHeader& header) {
  for (const pb::ConfigEntry& e : header.config()) {
    if (e.key() == "capture" && e.value() != "all") return true;
    if (e.key() == "capture_window") return true;
  }
  return false;
}

FileInfo load_file(uint32_t index, const std::string& path, ProfileVisitor& visitor) {
  FileInfo info;
  info.path = path;
  visitor.on_file_begin(index, path);
  FileAdapter adapter(index, info, visitor);
  info.status = read_file(path, adapter);
  adapter.finish();
  visitor.on_file_end(index, info);
  return info;
}

std::vector<FileInfo> load_files(const std::vector<std::string>& paths, ProfileVisitor& visitor) {
  std::vector<FileInfo> files;
  files.reserve(paths.size());
  for (const std::string& path : paths)
    files.push_back(load_file(static_cast<uint32_t>(files.size()), path, visitor));
  return files;
}

LossList total_losses(const std::vector<FileInfo>& files) {
  LossList totals;
  for (const FileInfo& file : files) {
    if (!file.footer) continue;
    for (const pb::Loss& loss : file.footer->losses()) {
      if (loss.count() == 0) continue;
      auto it = std::find_if(totals.begin(), totals.end(),
                             [&](const auto& entry) { return entry.first == loss.reason(); });
      if (it == totals.end())
        totals.emplace_back(loss.reason(), loss.count());
      else
        it->second += loss.count();
    }
  }
  return totals;
}

std::string describe_device(const pb::Device& d) {
  std::vector<std::string> facts;
  if (d.compute_major() != 0)
    facts.push_back(fmt::format("sm_{}{}", d.compute_major(), d.compute_minor()));
  if (d.sm_count() != 0) facts.push_back(fmt::format("{} SMs", d.sm_count()));
  if (d.total_memory() != 0) facts.push_back(format_memory(static_cast<int64_t>(d.total_memory())));
  if (!d.pci_bus_id().empty()) facts.push_back("PCI " + d.pci_bus_id());
  std::string out = fmt::format("{}: {}", d.ordinal(), d.name().empty() ? "(no name)" : d.name());
  if (!facts.empty()) out += fmt::format(" ({})", fmt::join(facts, ", "));
  return out;
}

void merge_devices(pb::FileHeader& header,
                   const google::protobuf::RepeatedPtrField<pb::Device>& devices) {
  for (const pb::Device& device : devices) {
    pb::Device* slot = nullptr;
    for (pb::Device& known : *header.mutable_devices())
      if (known.ordinal() == device.ordinal()) slot = &known;
    *(slot ? slot : header.add_devices()) = device;
    if (header.cuda_driver_version() == 0) header.set_cuda_driver_version(device.driver_version());
  }
}

bool is_cupti_loss(std::string_view reason) {
  return reason.starts_with("cupti_");
}

std::pair<LossList, LossList> split_losses(const LossList& losses) {
  std::pair<LossList, LossList> out;
  for (const auto& loss : losses)
    (is_cupti_loss(loss.first) ? out.second : out.first).push_back(loss);
  return out;
}

std::string format_loss_list(const LossList& losses) {
  std::string out;
  for (const auto& [reason, count] : losses) {
    if (!out.empty()) out += ' ';
    out += (reason.empty() ? std::string("unknown") : reason) + "=" + std::to_string(count);
  }
  return out;
}

std::string format_losses(const LossList& losses) {
  LossList records;
  for (const auto& loss : losses)
    if (loss_reason_counts_records(loss.first)) records.push_back(loss);
  const auto [own, cupti] = split_losses(records);
  std::string out = format_loss_list(own);
  if (!cupti.empty()) {
    if (!out.empty()) out += "; ";
    out += "CUPTI: " + format_loss_list(cupti);
  }
  return out;
}

std::string format_loss_events(const LossList& losses) {
  LossList events;
  for (const auto& loss : losses)
    if (!loss_reason_counts_records(loss.first)) events.push_back(loss);
  return format_loss_list(events);
}

}  // namespace gprof::analysis
