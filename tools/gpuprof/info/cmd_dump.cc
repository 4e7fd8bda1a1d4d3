// gpuprof dump FILE...: the records as JSON Lines, for scripts and tests
// that need them rather than a table. API records by default (so existing
// consumers see what they always saw); --records gpu|ranges|all adds GPU
// records and NVTX ranges, which come after the API records of their file
// (they are paired once it is read): ranges and marks first, then GPU
// records. Ranges of PyTorch ops carry "seq" (torch's sequence_nr) and
// "op_id" when the message had them. Every file streams (memory does not
// grow with it): API records and ranges in one read, GPU records in two
// more; GPROF_STREAM=0 reads through the in-memory loader instead, which
// the tests compare with.

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/api_ids.h"
#include "formats/read/reader.h"
#include "tools/analysis/model/range_stream.h"
#include "tools/analysis/read/file_facts.h"
#include "tools/analysis/read/gpu_names.h"
#include "tools/analysis/read/in_memory_asked.h"
#include "tools/analysis/read/profile.h"
#include "tools/analysis/read/range_names.h"
#include "tools/analysis/read/spill_sorter.h"
#include "tools/findings/stream/gpu_calls.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/cli/input_paths.h"
#include "tools/gpuprof/cli/progress.h"
#include "tools/gpuprof/commands.h"
#include "tools/gpuprof/info/dump_json.h"

namespace gprof::cli {
namespace {

struct DumpOptions {
  std::vector<std::string> files;
  std::string records = "api";
  bool quiet = false;
};

// One read of a file: its API records printed as they are read (`api`),
// its NVTX events paired as they stream past (`ranges`, range_stream.h) and
// printed once the file is read, in the order they were opened, as the
// in-memory loader hands them out. Kept: the file's names, the open ranges,
// and the closed ones in a sorter that spills, so that memory does not grow
// with the file. Its FileInfo holds what check_files needs (status, header,
// footer) and the range counts.
class FileLines final : public RecordVisitor {
 public:
  FileLines(uint32_t file, analysis::FileInfo& info, bool api, bool ranges)
      : file_(file),
        info_(info),
        facts_(info),
        api_(api),
        ranges_(ranges),
        stream_(kSortMemory, [this](const analysis::Range& r, uint64_t number, bool) {
          closed_.add(Numbered{r, number});
        }) {}

  void on_header(const pb::FileHeader& header) override { facts_.header(header); }
  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) override {
    facts_.devices(devices);
  }
  void on_cupti(const pb::CuptiStatus& status) override { facts_.cupti(status); }
  void on_footer(const pb::Footer& footer) override { facts_.footer(footer); }
  void on_string(const pb::StringEntry& entry) override {
    // API records need kernel names only; NVTX messages (unique per op call
    // under emit_nvtx) are kept only when ranges are printed.
    if (ranges_ || entry.kind() == pb::StringEntry::KERNEL) facts_.string(entry);
  }
  void on_api(const ApiRecord& record) override {
    facts_.seen(record.start_ns, record.end_ns);
    if (!api_) return;
    const ApiInfo* info = api_info(record.api);
    if (info == nullptr) return;  // the reader skips unknown APIs; be safe anyway
    const std::string* kernel =
        info->fields & kFieldLaunch ? facts_.kernel(record.kernel) : nullptr;
    print_line(api_json(file_, record, *info, kernel));
  }
  void on_range(const RangeEvent& event) override {
    if (event.op != RangeOp::kNameThread && event.op != RangeOp::kNameCategory)
      facts_.seen(event.time_ns, event.time_ns);
    if (ranges_) stream_.add(event);
  }
  void on_gpu(const GpuRecord& record) override {
    if (!facts_.untimed(record.start_ns, record.end_ns))
      facts_.seen(record.start_ns, record.end_ns);
  }

  // Once the file is read: open ranges end when the process did (the
  // footer's time, else the last record's), then every range is printed.
  void finish() {
    if (!ranges_) return;
    uint64_t last = info_.last_ns;
    if (info_.footer) last = std::max<uint64_t>(last, info_.footer->end_clock_ns());
    stream_.finish(last, info_.ranges);
    auto sorted = closed_.sorted();
    for (Numbered n; sorted.next(n);) {
      const analysis::Range& r = n.range;
      const uint64_t key = uint64_t{r.domain} << 32 | r.name;
      auto names = names_.find(key);
      if (names == names_.end()) {
        const std::string* message = string_of(pb::StringEntry::NVTX, r.name);
        names = names_
                    .emplace(key,
                             std::pair(analysis::range_row_name(
                                           message, string_of(pb::StringEntry::DOMAIN, r.domain)),
                                       message ? std::string(analysis::torch_input_shapes(*message))
                                               : std::string()))
                    .first;
      }
      print_line(range_json(file_, r, names->second.first, names->second.second));
    }
  }

 private:
  static constexpr size_t kSortMemory = size_t{4} << 20;
  struct Numbered {
    analysis::Range range;
    uint64_t number;  // the order it was opened in
  };
  struct ByNumber {
    bool operator()(const Numbered& a, const Numbered& b) const { return a.number < b.number; }
    static std::pair<uint64_t, uint64_t> prefix(const Numbered& n) { return {n.number, 0}; }
  };
  const std::string* string_of(int kind, uint32_t id) const { return facts_.text(kind, id); }

  uint32_t file_;
  analysis::FileInfo& info_;
  analysis::FileFacts facts_;
  bool api_;
  bool ranges_;
  // (domain, message) -> row name, input shapes
  std::unordered_map<uint64_t, std::pair<std::string, std::string>> names_;
  analysis::SpillSorter<Numbered, ByNumber> closed_{kSortMemory / sizeof(Numbered)};
  analysis::RangeStream stream_;
};

// --records gpu: which call issued each record from a first read of the
// file (gpu_calls.h), the records themselves from a second, in file order,
// so that memory does not grow with the file.
class GpuLines final : public RecordVisitor {
 public:
  GpuLines(uint32_t file, findings::stream::GpuCalls& calls,
           const std::unordered_map<uint32_t, std::string>& kernels)
      : file_(file), calls_(calls.sorted()), kernels_(kernels) {}

  void on_gpu(const GpuRecord& r) override {
    if (r.start_ns == 0 && r.end_ns == 0) return;  // no timestamp: counted, not handed out
    findings::stream::GpuCall call;
    if (!calls_.next(call) || !call.kept) return;
    const std::string* kernel = nullptr;
    if (r.kind == GpuKind::kKernel && r.kernel != 0) {
      const auto it = kernels_.find(r.kernel);
      if (it != kernels_.end()) kernel = &it->second;
    }
    const uint64_t key = analysis::gpu_row_name_key(r, kernel != nullptr);
    auto name = names_.find(key);
    if (name == names_.end()) name = names_.emplace(key, analysis::gpu_row_name(r, kernel)).first;
    print_line(
        gpu_json(file_, r, name->second, kernel, call.has_call ? &call.correlation : nullptr));
  }

 private:
  uint32_t file_;
  decltype(std::declval<findings::stream::GpuCalls&>().sorted()) calls_;
  const std::unordered_map<uint32_t, std::string>& kernels_;
  std::unordered_map<uint64_t, std::string> names_;  // gpu_row_name_key -> row name
};

// A file's GPU records: streamed (GpuLines) into `info` when it is the
// file's first read, else in memory, with report's note.
void dump_gpu(uint32_t index, const std::string& path, analysis::FileInfo& info, bool first,
              analysis::ProfileVisitor& in_memory) {
  analysis::FileInfo scratch;
  analysis::FileInfo& scanned = first ? info : scratch;
  findings::stream::GpuCalls calls;
  std::unordered_map<uint32_t, std::string> kernels;
  std::string why;
  const bool streamed = findings::stream::stream_gpu_calls(path, scanned, calls, kernels, why);
  if (!scanned.status.opened) return;
  retract_read_progress(scanned.status);  // the file counts once
  if (streamed) {
    GpuLines lines(index, calls, kernels);
    read_file(path, lines);
    return;
  }
  print_in_memory_notes({{path, why}}, nullptr);
  const analysis::FileInfo loaded = analysis::load_file(index, path, in_memory);
  if (first) info = loaded;
}

// Each file streamed, one after another: API records and ranges in one
// read (FileLines), GPU records in two more (dump_gpu).
std::vector<analysis::FileInfo> dump_streamed(const std::vector<std::string>& paths, bool api,
                                              bool ranges, bool gpu,
                                              analysis::ProfileVisitor& gpu_in_memory) {
  std::vector<analysis::FileInfo> files;
  for (const std::string& path : paths) {
    const auto index = static_cast<uint32_t>(files.size());
    analysis::FileInfo& info = files.emplace_back();
    info.path = path;
    if (api || ranges) {
      FileLines lines(index, info, api, ranges);
      info.status = read_file(path, lines);
      lines.finish();
      if (!info.status.opened) continue;
    }
    if (gpu) dump_gpu(index, path, info, !api && !ranges, gpu_in_memory);
  }
  return files;
}

// Through the in-memory loader, which pairs a file's GPU records and ranges
// once it has been read: with GPROF_STREAM=0 (the tests' reference), and
// for the GPU records of a file the findings' stream declines.
class DumpVisitor : public analysis::ProfileVisitor {
 public:
  DumpVisitor(bool api, bool gpu, bool ranges) : api_(api), gpu_(gpu), ranges_(ranges) {}

  void on_api(const analysis::ApiCall& call) override {
    if (api_) print_line(api_json(call.file, call.record, call.info, call.kernel));
  }

  void on_range(const analysis::RangeSpan& span) override {
    if (ranges_) print_line(range_json(span.file, span.range, span.name, span.input_shapes));
  }

  void on_gpu(const analysis::GpuActivity& activity) override {
    if (!gpu_) return;
    const uint64_t call = activity.call != nullptr ? activity.call->correlation : 0;
    print_line(gpu_json(activity.file, *activity.record, *activity.name, activity.kernel,
                        activity.call != nullptr ? &call : nullptr));
  }

 private:
  bool api_;
  bool gpu_;
  bool ranges_;
};

}  // namespace

void add_dump_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<DumpOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dump", "Print the recorded records as JSON Lines (one object per record, in file order)");
  cmd->add_option("files", options->files, "Sidecar files and directories of them")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--records", options->records,
                  "Which records: api (CPU-side calls), gpu (CUPTI activities), ranges (NVTX "
                  "ranges and marks, paired), all")
      ->type_name("WHICH")
      ->capture_default_str()
      ->check(CLI::IsMember({"api", "gpu", "ranges", "all"}));
  add_quiet_flag(*cmd, options->quiet);
  cmd->footer(
      "Exit status: 0 every file was read; 1 some file could not be read, or the output could not "
      "be written; 2 bad usage.");
  cmd->callback([options, &exit_status] {
    const std::string& which = options->records;
    const bool api = which == "api" || which == "all", gpu = which == "gpu" || which == "all",
               ranges = which == "ranges" || which == "all";
    DumpVisitor visitor(api, gpu, ranges);
    DumpVisitor gpu_only(false, true, false);
    const Inputs inputs = expand_inputs(options->files);
    const bool found = report_input_errors(inputs.errors);
    ProgressScope progress(inputs.files, 1, options->quiet, true);
    // GPROF_STREAM=0: the in-memory loader, for the tests that compare (API
    // records alone always stream: there is nothing to pair).
    const std::vector<analysis::FileInfo> infos =
        analysis::in_memory_asked() && which != "api"
            ? analysis::load_files(inputs.files, visitor)
            : dump_streamed(inputs.files, api, ranges, gpu, gpu_only);
    exit_status = check_files(infos) && found ? kExitOk : kExitFileError;
  });
}

}  // namespace gprof::cli
