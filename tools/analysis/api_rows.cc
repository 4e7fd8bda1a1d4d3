#include "tools/analysis/api_rows.h"

#include "tools/analysis/demangle.h"

namespace gprof::analysis {

void ApiRowsVisitor::on_file_begin(uint32_t /*file*/, const std::string& /*path*/) {
  kernel_keys_.clear();  // string ids are per file
}

void ApiRowsVisitor::on_api(const ApiCall& call) {
  const ApiRecord& r = call.record;
  const auto api = static_cast<uint16_t>(r.api);
  auto it = api_keys_.find(api);
  if (it == api_keys_.end())
    it = api_keys_.emplace(api, out_.key(call.info.display, RowKind::kApi)).first;
  out_.add_cpu_event(static_cast<uint64_t>(call.file) << 32 | r.tid, r.start_ns, r.end_ns,
                     it->second);

  if (!(call.info.fields & kFieldLaunch)) return;
  if (call.kernel == nullptr) {
    out_.add_gpu_activity(out_.key(kUnknownKernel, RowKind::kGpu), 0);
    return;
  }
  auto kernel = kernel_keys_.find(r.kernel);
  if (kernel == kernel_keys_.end())
    kernel = kernel_keys_.emplace(r.kernel, out_.key(demangle(*call.kernel), RowKind::kGpu)).first;
  out_.add_gpu_activity(kernel->second, 0);
}

}  // namespace gprof::analysis
