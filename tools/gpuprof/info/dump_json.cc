#include "tools/gpuprof/info/dump_json.h"

#include <cstdio>

#include "formats/correlation_ids.h"
#include "tools/analysis/read/gpu_names.h"

namespace gprof::cli {

void print_line(const nlohmann::json& j) {
  std::string line = j.dump();
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stdout);
}

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

nlohmann::json range_json(uint32_t file, const analysis::Range& r, const std::string& name,
                          std::string_view input_shapes) {
  const char* kind = r.kind == analysis::RangeKind::kPushPop    ? "push_pop"
                     : r.kind == analysis::RangeKind::kStartEnd ? "start_end"
                                                                : "mark";
  nlohmann::json j = {
      {"type", "range"}, {"file", file},           {"kind", kind},
      {"name", name},    {"start_ns", r.start_ns}, {"end_ns", r.end_ns},
      {"tid", r.tid},    {"end_tid", r.end_tid},   {"open_at_exit", r.open_at_exit}};
  // PyTorch emit_nvtx numbers, when the message had them: torch's own
  // sequence_nr (stored + 1 so that 0 can mean none).
  if (r.seq != 0) j["seq"] = r.seq - 1;
  if (r.op_id != 0) j["op_id"] = r.op_id;
  if (!input_shapes.empty()) j["input_shapes"] = input_shapes;
  return j;
}

}  // namespace gprof::cli
