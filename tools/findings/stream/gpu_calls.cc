#include "tools/findings/stream/gpu_calls.h"

#include "tools/findings/stream/scanned_join.h"

namespace gprof::findings::stream {
namespace {

// The join's visit (analysis/read/correlation_join.h): every GPU record, sync records too.
class Join {
 public:
  Join(GpuCalls& out, WindowedGpu& windowed, analysis::GpuCounts& counts)
      : out_(out), windowed_(windowed), counts_(counts) {}
  void owner(const CallRecord& c) { correlation_ = c.correlation; }
  void issued(const GpuScan& g) {
    windowed_.paired(g);
    out_.add(GpuCall{g.seq, correlation_, true, true});
  }
  void owned() {}
  void other(const CallRecord&) {}
  void unpaired(const GpuScan& g) {
    const bool kept = windowed_.unpaired(g);
    if (kept) ++counts_.unpaired;
    out_.add(GpuCall{g.seq, 0, false, kept});
  }

 private:
  GpuCalls& out_;
  WindowedGpu& windowed_;
  analysis::GpuCounts& counts_;
  uint64_t correlation_ = 0;
};

}  // namespace

bool stream_gpu_calls(const std::string& path, analysis::FileInfo& info, GpuCalls& calls,
                      std::unordered_map<uint32_t, std::string>& kernels, std::string& why) {
  std::vector<std::string> names;
  return scan_and_join(path, 0, info, names, why, [&](FileScan& scan, WindowedGpu& windowed) {
    kernels = scan.kernels();
    return Join(calls, windowed, info.gpu);
  });
}

}  // namespace gprof::findings::stream
