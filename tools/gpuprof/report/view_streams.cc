#include "tools/gpuprof/report/view_streams.h"

#include <algorithm>

#include "formats/api_ids.h"
#include "formats/read/reader.h"
#include "tools/analysis/aggregate/ops_stream.h"
#include "tools/findings/stream/issued_work.h"

namespace gprof::cli {
namespace {

// As analysis::in_scope: without a scope everything, with one only work that
// a call in it issued.
bool in_scope(const analysis::CallSet* scope, int32_t call) {
  return scope == nullptr ||
         (call != findings::kNone && scope->contains(static_cast<uint32_t>(call)));
}

// A launch as the loader's Launch gives it to LaunchesVisitor::on_launch.
// `scope` (--range): only launches of calls in it.
class LaunchSink final : public findings::stream::IssuedWorkVisitor {
 public:
  LaunchSink(analysis::LaunchesVisitor& view, const analysis::CallSet* scope)
      : view_(view), scope_(scope) {}
  void on_launch(const findings::Call& call, std::span<const findings::Work> work,
                 const std::vector<std::string>& names) override {
    if (!in_scope(scope_, work.front().call)) return;
    const ApiInfo* info = api_info(call.api);
    const std::string_view name = work.size() == 1 || info == nullptr
                                      ? std::string_view(names[work.front().name])
                                      : std::string_view(info->display);
    uint64_t last_end = work.front().start_ns;
    for (const findings::Work& w : work) last_end = std::max(last_end, w.end_ns);
    view_.add_launch(name, call.start_ns, call.end_ns, work.front().start_ns, last_end);
  }

 private:
  analysis::LaunchesVisitor& view_;
  const analysis::CallSet* scope_;
};

// A copy or set as the loader's GpuActivity gives it to TransfersVisitor::on_gpu;
// `scope` (--range): only those issued by a call in it.
class TransferSink final : public findings::stream::IssuedWorkVisitor {
 public:
  TransferSink(analysis::TransfersVisitor& view, const analysis::CallSet* scope)
      : view_(view), scope_(scope) {}
  void on_work(const findings::Work& work, const std::string& name) override {
    if ((work.kind == GpuKind::kMemcpy || work.kind == GpuKind::kMemset) &&
        in_scope(scope_, work.call))
      view_.add_transfer(name, work.bytes, work.duration());
  }

 private:
  analysis::TransfersVisitor& view_;
  const analysis::CallSet* scope_;
};

// With --range, a first stream of the file marks the calls in range as the
// key-averages views walk them (ops_stream.h); the second pairs their work.
// Two reads of the file, in memory that follows the rows and a bit a call,
// rather than one that holds the file.
bool mark_scope(const std::string& path, unsigned decoders, const std::vector<std::string>& ranges,
                analysis::CallSet& scope, bool& range_matched, std::string& why) {
  analysis::KeyAverages scratch;
  const std::optional<analysis::StreamedFile> walked = analysis::stream_ops_file(
      0, path, analysis::OpsOptions{analysis::GroupBy::kName, ranges, false}, std::nullopt, scratch,
      why, decoders, &scope);
  if (!walked) return false;
  range_matched = scratch.row_count() != 0;    // the ranges themselves are rows in scope
  retract_read_progress(walked->info.status);  // the file counts once, in the second read
  return true;
}

std::optional<analysis::FileInfo> stream(const std::string& path, unsigned decoders,
                                         findings::stream::IssuedWorkVisitor& sink,
                                         std::string& why) {
  analysis::FileInfo info;
  if (findings::stream::stream_issued_work(path, decoders, info, sink, why)) return info;
  retract_read_progress(info.status);
  return std::nullopt;
}

// The view's sink over the issued work, after the scope with --range.
template <typename Sink, typename View>
std::optional<analysis::FileInfo> stream_scoped(const std::string& path, unsigned decoders,
                                                const std::vector<std::string>& ranges, View& view,
                                                bool& range_matched, std::string& why) {
  analysis::CallSet scope;
  if (!ranges.empty() && !mark_scope(path, decoders, ranges, scope, range_matched, why))
    return std::nullopt;
  Sink sink(view, ranges.empty() ? nullptr : &scope);
  return stream(path, decoders, sink, why);
}

}  // namespace

std::optional<analysis::FileInfo> stream_view_file(const std::string& path, unsigned decoders,
                                                   const std::vector<std::string>& ranges,
                                                   analysis::LaunchesVisitor& view,
                                                   bool& range_matched, std::string& why) {
  return stream_scoped<LaunchSink>(path, decoders, ranges, view, range_matched, why);
}

std::optional<analysis::FileInfo> stream_view_file(const std::string& path, unsigned decoders,
                                                   const std::vector<std::string>& ranges,
                                                   analysis::TransfersVisitor& view,
                                                   bool& range_matched, std::string& why) {
  return stream_scoped<TransferSink>(path, decoders, ranges, view, range_matched, why);
}

}  // namespace gprof::cli
