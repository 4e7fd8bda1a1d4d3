#include "tools/trace/file_scan.h"

#include <algorithm>

#include "formats/read/reader.h"

namespace gprof::trace {
namespace {

class StartScan : public RecordVisitor {
 public:
  void on_header(const pb::FileHeader& header) override { start.header = header; }
  void on_api(const ApiRecord& record) override { seen(record.start_ns); }
  void on_range(const RangeEvent& event) override {
    if (event.op != RangeOp::kNameThread && event.op != RangeOp::kNameCategory) seen(event.time_ns);
  }
  void on_gpu(const GpuRecord& record) override {
    if (record.start_ns != 0 || record.end_ns != 0) seen(record.start_ns);  // as the loader
  }

  FileStart start;

 private:
  void seen(uint64_t time_ns) {
    start.first_ns = std::min(start.first_ns.value_or(time_ns), time_ns);
  }
};

}  // namespace

FileStart scan_file_start(const std::string& path) {
  StartScan scan;
  read_file(path, scan);
  return std::move(scan.start);
}

}  // namespace gprof::trace
