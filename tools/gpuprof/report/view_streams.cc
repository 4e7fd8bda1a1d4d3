#include "tools/gpuprof/report/view_streams.h"

#include <algorithm>
#include <cstdlib>

#include "formats/api_ids.h"
#include "formats/reader.h"
#include "tools/analyze/stream/issued_work.h"

namespace gprof::cli {
namespace {

// A launch as the loader's Launch gives it to LaunchesVisitor::on_launch.
class LaunchSink final : public analyze::stream::IssuedWorkVisitor {
 public:
  explicit LaunchSink(analysis::LaunchesVisitor& view) : view_(view) {}
  void on_launch(const analyze::Call& call, std::span<const analyze::Work> work,
                 const std::vector<std::string>& names) override {
    const ApiInfo* info = api_info(call.api);
    const std::string_view name = work.size() == 1 || info == nullptr
                                      ? std::string_view(names[work.front().name])
                                      : std::string_view(info->display);
    uint64_t last_end = work.front().start_ns;
    for (const analyze::Work& w : work) last_end = std::max(last_end, w.end_ns);
    view_.add_launch(name, call.start_ns, call.end_ns, work.front().start_ns, last_end);
  }

 private:
  analysis::LaunchesVisitor& view_;
};

// A copy or set as the loader's GpuActivity gives it to TransfersVisitor::on_gpu.
class TransferSink final : public analyze::stream::IssuedWorkVisitor {
 public:
  explicit TransferSink(analysis::TransfersVisitor& view) : view_(view) {}
  void on_work(const analyze::Work& work, const std::string& name) override {
    if (work.kind == GpuKind::kMemcpy || work.kind == GpuKind::kMemset)
      view_.add_transfer(name, work.bytes, work.duration());
  }

 private:
  analysis::TransfersVisitor& view_;
};

std::optional<analysis::FileInfo> stream(const std::string& path, unsigned decoders,
                                         analyze::stream::IssuedWorkVisitor& sink,
                                         std::string& why) {
  analysis::FileInfo info;
  if (analyze::stream::stream_issued_work(path, decoders, info, sink, why)) return info;
  retract_read_progress(info.status);
  return std::nullopt;
}

}  // namespace

bool views_may_stream(const ReportOptions& options) {
  const char* value = std::getenv("GPROF_STREAM");
  return options.ranges.empty() && !(value != nullptr && std::string(value) == "0");
}

std::optional<analysis::FileInfo> stream_view_file(const std::string& path, unsigned decoders,
                                                   analysis::LaunchesVisitor& view,
                                                   std::string& why) {
  LaunchSink sink(view);
  return stream(path, decoders, sink, why);
}

std::optional<analysis::FileInfo> stream_view_file(const std::string& path, unsigned decoders,
                                                   analysis::TransfersVisitor& view,
                                                   std::string& why) {
  TransferSink sink(view);
  return stream(path, decoders, sink, why);
}

}  // namespace gprof::cli
