#include "tools/findings/stream/issued_work.h"

#include "tools/findings/stream/scanned_join.h"

namespace gprof::findings::stream {
namespace {

// FileScan keeps a file's GPU records by correlation and its calls by thread:
// the join takes the calls by correlation.
class Join {
 public:
  Join(const std::vector<std::string>& names, IssuedWorkVisitor& out, analysis::GpuCounts& counts,
       WindowedGpu& windowed, FileScan& scan)
      : names_(names), out_(out), counts_(counts), windowed_(windowed), scan_(scan) {}

  void owner(const CallRecord& c) {
    call_ = c.call;
    correlation_ = c.correlation;
    index_ = static_cast<int32_t>(c.index);
    work_.clear();
  }
  void issued(const GpuScan& g) {
    windowed_.paired(g);
    if (!g.is_work) return;
    scan_.worked(correlation_);
    Work w = g.work;
    w.call = index_;
    work_.push_back(w);
    out_.on_work(w, names_[w.name]);
  }
  void owned() {
    if (!work_.empty()) out_.on_launch(call_, work_, names_);
  }
  void other(const CallRecord&) {}
  void unpaired(const GpuScan& g) {
    if (!windowed_.unpaired(g)) return;
    ++counts_.unpaired;
    if (g.is_work) out_.on_work(g.work, names_[g.work.name]);
  }

 private:
  const std::vector<std::string>& names_;
  IssuedWorkVisitor& out_;
  analysis::GpuCounts& counts_;
  WindowedGpu& windowed_;
  FileScan& scan_;
  Call call_;
  uint64_t correlation_ = 0;
  int32_t index_ = kNone;
  std::vector<Work> work_;  // one call's: a graph launch's nodes at most
};

}  // namespace

bool stream_issued_work(const std::string& path, unsigned decoders, analysis::FileInfo& info,
                        IssuedWorkVisitor& visitor, std::string& why) {
  std::vector<std::string> names;
  return scan_and_join(path, decoders, info, names, why,
                       [&](FileScan& scan, WindowedGpu& windowed) {
                         return Join(names, visitor, info.gpu, windowed, scan);
                       });
}

}  // namespace gprof::findings::stream
