#include "tools/analysis/api_rows.h"

#include "tools/analysis/demangle.h"

namespace gprof::analysis {

void ApiRowsVisitor::on_file_begin(uint32_t /*file*/, const std::string& /*path*/) {
  launches_.clear();
  launch_index_.clear();
  gpu_keys_.clear();
}

KeyAverages::Key ApiRowsVisitor::api_key(ApiId api, const ApiInfo& info) {
  const auto id = static_cast<uint16_t>(api);
  auto it = api_keys_.find(id);
  if (it == api_keys_.end())
    it = api_keys_.emplace(id, out_.key(info.display, RowKind::kApi)).first;
  return it->second;
}

void ApiRowsVisitor::on_api(const ApiCall& call) {
  const ApiRecord& r = call.record;
  out_.add_cpu_event(static_cast<uint64_t>(call.file) << 32 | r.tid, r.start_ns, r.end_ns,
                     api_key(r.api, call.info));
  if (!(call.info.fields & kFieldLaunch)) return;
  // Whether the file has GPU records is known only at its end. The name
  // pointers stay valid until then (the loader owns them).
  auto [it, added] = launch_index_.emplace(call.kernel, launches_.size());
  if (added) launches_.emplace_back(call.kernel, 0);
  ++launches_[it->second].second;
}

void ApiRowsVisitor::on_gpu(const GpuActivity& activity) {
  if (!activity.is_work()) return;
  const uint64_t duration = activity.duration_ns();
  auto it = gpu_keys_.find(activity.name);
  if (it == gpu_keys_.end())
    it = gpu_keys_.emplace(activity.name, out_.key(*activity.name, RowKind::kGpu)).first;
  out_.add_gpu_activity(it->second, duration);
  if (activity.call == nullptr) return;
  if (const ApiInfo* info = api_info(activity.call->api))
    out_.add_device_time(api_key(activity.call->api, *info), duration);
}

void ApiRowsVisitor::on_file_end(uint32_t /*file*/, const FileInfo& info) {
  if (info.gpu.records == 0) {
    for (const auto& [kernel, count] : launches_) {
      const KeyAverages::Key key =
          out_.key(kernel ? demangle(*kernel) : std::string(kUnknownKernel), RowKind::kGpu);
      for (uint64_t i = 0; i < count; ++i) out_.add_gpu_activity(key, 0);
    }
  }
  launches_.clear();
  launch_index_.clear();
  gpu_keys_.clear();
}

}  // namespace gprof::analysis
