// gpuprof dump FILE...: the records as JSON Lines, for scripts and tests
// that need them rather than a table. API records by default (so existing
// consumers see what they always saw); --records gpu|ranges|all adds GPU
// records and NVTX ranges, which come after the API records of their file
// (they are paired at its end): ranges and marks first, then GPU records.
// Ranges of PyTorch ops carry "seq" (torch's sequence_nr) and "op_id" when
// the message had them.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/api_ids.h"
#include "formats/correlation_ids.h"
#include "formats/read/reader.h"
#include "tools/analysis/read/gpu_names.h"
#include "tools/analysis/read/in_memory_asked.h"
#include "tools/analysis/read/profile.h"
#include "tools/findings/stream/gpu_calls.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/cli/input_paths.h"
#include "tools/gpuprof/cli/progress.h"
#include "tools/gpuprof/commands.h"

namespace gprof::cli {
namespace {

struct DumpOptions {
  std::vector<std::string> files;
  std::string records = "api";
  bool quiet = false;
};

void print_line(const nlohmann::json& j) {
  std::string line = j.dump();
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stdout);
}

// An API record as a JSON object; `kernel`: its launch's mangled name, when known.
nlohmann::json api_json(uint32_t file, const ApiRecord& r, const ApiInfo& info,
                        const std::string* kernel) {
  nlohmann::json j = {
      {"type", "api"},      {"file", file},         {"tid", r.tid},
      {"api", info.symbol}, {"name", info.display}, {"start_ns", r.start_ns},
      {"end_ns", r.end_ns}, {"result", r.result},   {"correlation", r.correlation},
  };
  const uint32_t fields = info.fields;
  if (fields & kFieldLaunch) {
    j["kernel"] = kernel ? nlohmann::json(*kernel) : nlohmann::json(nullptr);
    j["grid"] = {r.grid.x, r.grid.y, r.grid.z};
    j["block"] = {r.block.x, r.block.y, r.block.z};
    j["shared_mem"] = r.shared_mem;
  }
  if (fields & kFieldStream) j["stream"] = r.stream;
  if (fields & kFieldBytes) j["bytes"] = r.bytes;
  if (fields & kFieldAddress) j["address"] = r.address;
  if (fields & kFieldCopyKind) j["copy_kind"] = r.copy_kind;
  if (r.runtime) j["runtime"] = "libcudart.so." + std::to_string(r.runtime);
  return j;
}

// Every GpuRecord field, whatever the kind, plus the row name and, when
// paired, the correlation of the API call that issued it (`call`: its id as
// pairing unwrapped it).
nlohmann::json gpu_json(uint32_t file, const GpuRecord& r, const std::string& name,
                        const std::string* kernel, const uint64_t* call) {
  nlohmann::json j = {
      {"type", "gpu"},
      {"file", file},
      {"kind", analysis::gpu_kind_name(r.kind)},
      {"name", name},
      {"start_ns", r.start_ns},
      {"end_ns", r.end_ns},
      {"correlation", r.correlation},
      {"bytes", r.bytes},
      {"graph", r.graph},
      {"graph_node", r.graph_node},
      {"kernel", kernel ? nlohmann::json(*kernel) : nlohmann::json(nullptr)},
      {"device", r.device},
      {"stream", r.stream},
      {"grid", {r.grid.x, r.grid.y, r.grid.z}},
      {"block", {r.block.x, r.block.y, r.block.z}},
      {"shared_mem", r.shared_mem},
      {"registers", r.registers},
      {"copy_kind", r.copy_kind},
      {"src_kind", r.src_kind},
      {"dst_kind", r.dst_kind},
      {"peer_device", r.peer_device},
      {"detail", r.detail},
  };
  // The call's id as recorded: pairing unwraps CUPTI's 32-bit ids, and an
  // unwrapped id keeps the recorded one in its low 32 bits; a pushed id
  // (formats/correlation_ids.h) is recorded whole.
  if (call != nullptr) {
    const uint64_t id = *call;
    j["api_correlation"] = id >> 32 != 0 && !is_pushed_id(id) ? id & 0xFFFFFFFFu : id;
  }
  return j;
}

// --records api: each call printed as it is read, nothing kept but the
// file's kernel names, so that memory does not grow with the file. Its
// FileInfo holds what check_files needs (status, header, footer).
class ApiLines final : public RecordVisitor {
 public:
  ApiLines(uint32_t file, analysis::FileInfo& info) : file_(file), info_(info) {}

  void on_header(const pb::FileHeader& header) override { info_.header = header; }
  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) override {
    if (!info_.header) info_.header.emplace();
    analysis::merge_devices(*info_.header, devices);
  }
  void on_footer(const pb::Footer& footer) override { info_.footer = footer; }
  void on_string(const pb::StringEntry& entry) override {
    if (entry.kind() == pb::StringEntry::KERNEL) kernels_[entry.id()] = entry.value();
  }
  void on_api(const ApiRecord& record) override {
    const ApiInfo* info = api_info(record.api);
    if (info == nullptr) return;  // the reader skips unknown APIs; be safe anyway
    const std::string* kernel = nullptr;
    if (info->fields & kFieldLaunch && record.kernel != 0) {
      const auto it = kernels_.find(record.kernel);
      if (it != kernels_.end()) kernel = &it->second;
    }
    print_line(api_json(file_, record, *info, kernel));
  }

 private:
  uint32_t file_;
  analysis::FileInfo& info_;
  std::unordered_map<uint32_t, std::string> kernels_;
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

// --records gpu, a file at a time: streamed (GpuLines), else in memory
// with report's note.
std::vector<analysis::FileInfo> dump_gpu(const std::vector<std::string>& paths,
                                         analysis::ProfileVisitor& in_memory) {
  std::vector<analysis::FileInfo> files;
  for (const std::string& path : paths) {
    const auto index = static_cast<uint32_t>(files.size());
    analysis::FileInfo& info = files.emplace_back();
    if (!analysis::in_memory_asked()) {
      findings::stream::GpuCalls calls;
      std::unordered_map<uint32_t, std::string> kernels;
      std::string why;
      if (findings::stream::stream_gpu_calls(path, info, calls, kernels, why)) {
        if (!info.status.opened) continue;
        retract_read_progress(info.status);  // the file counts once, in the second read
        GpuLines lines(index, calls, kernels);
        read_file(path, lines);
        continue;
      }
      retract_read_progress(info.status);
      print_in_memory_notes({{path, why}}, nullptr);
    }
    info = analysis::load_file(index, path, in_memory);
  }
  return files;
}

std::vector<analysis::FileInfo> dump_api(const std::vector<std::string>& paths) {
  std::vector<analysis::FileInfo> files;
  for (const std::string& path : paths) {
    analysis::FileInfo& info = files.emplace_back();
    info.path = path;
    ApiLines lines(static_cast<uint32_t>(files.size() - 1), info);
    info.status = read_file(path, lines);
  }
  return files;
}

// --records gpu|ranges|all: through the in-memory loader, which pairs a
// file's GPU records and ranges once it has been read.
class DumpVisitor : public analysis::ProfileVisitor {
 public:
  DumpVisitor(bool api, bool gpu, bool ranges) : api_(api), gpu_(gpu), ranges_(ranges) {}

  void on_api(const analysis::ApiCall& call) override {
    if (api_) print_line(api_json(call.file, call.record, call.info, call.kernel));
  }

  // A paired range (nvtx_ranges.h) with its row name; a mark has start = end.
  void on_range(const analysis::RangeSpan& span) override {
    if (!ranges_) return;
    const analysis::Range& r = span.range;
    const char* kind = r.kind == analysis::RangeKind::kPushPop    ? "push_pop"
                       : r.kind == analysis::RangeKind::kStartEnd ? "start_end"
                                                                  : "mark";
    nlohmann::json j = {
        {"type", "range"},   {"file", span.file},      {"kind", kind},
        {"name", span.name}, {"start_ns", r.start_ns}, {"end_ns", r.end_ns},
        {"tid", r.tid},      {"end_tid", r.end_tid},   {"open_at_exit", r.open_at_exit}};
    // PyTorch emit_nvtx numbers, when the message had them: torch's own
    // sequence_nr (stored + 1 so that 0 can mean none).
    if (r.seq != 0) j["seq"] = r.seq - 1;
    if (r.op_id != 0) j["op_id"] = r.op_id;
    if (!span.input_shapes.empty()) j["input_shapes"] = span.input_shapes;
    print_line(j);
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
  cmd->footer("Exit status: 0 every file was read; 1 some file could not be read; 2 bad usage.");
  cmd->callback([options, &exit_status] {
    const std::string& which = options->records;
    DumpVisitor visitor(which == "all", which == "gpu" || which == "all",
                        which == "ranges" || which == "all");
    const Inputs inputs = expand_inputs(options->files);
    const bool found = report_input_errors(inputs.errors);
    ProgressScope progress(inputs.files, 1, options->quiet, true);
    const std::vector<analysis::FileInfo> infos = which == "api" ? dump_api(inputs.files)
                                                  : which == "gpu"
                                                      ? dump_gpu(inputs.files, visitor)
                                                      : analysis::load_files(inputs.files, visitor);
    exit_status = check_files(infos) && found ? kExitOk : kExitFileError;
  });
}

}  // namespace gprof::cli
