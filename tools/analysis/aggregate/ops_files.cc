#include "tools/analysis/aggregate/ops_files.h"

#include <algorithm>
#include <memory>

#include "tools/analysis/aggregate/ops_stream.h"

#include "tools/analysis/read/in_memory_asked.h"
#include "tools/analysis/read/parallel_files.h"
#include "tools/analysis/read/visitor_chain.h"

namespace gprof::analysis {
namespace {

// One file's rows and lines; the throughput visitor asks the rows' visitor
// what --range keeps, as report's chain does.
class OpsFileWork : public FileWork {
 public:
  OpsFileWork(const OpsFilesOptions& options, unsigned decoders, uint32_t file)
      : options_(options),
        decoders_(decoders),
        stream_(!in_memory_asked()),
        rows_(file),
        ops_(rows_, options.ops),
        throughput_(options.steps.value_or(std::vector<std::string>{}),
                    options.ops.ranges.empty() ? nullptr : &ops_),
        chain_(options.steps ? std::vector<ProfileVisitor*>{&ops_, &throughput_}
                             : std::vector<ProfileVisitor*>{&ops_}) {}

  ProfileVisitor& visitor() override { return chain_; }

  std::optional<FileInfo> read(uint32_t file, const std::string& path) override {
    if (!stream_) return std::nullopt;
    std::optional<StreamedFile> streamed = stream_ops_file(file, path, options_.ops, options_.steps,
                                                           rows_, in_memory_because_, decoders_);
    if (!streamed) return std::nullopt;
    streamed_ = true;
    saw_memory_ = streamed->saw_memory;
    if (streamed->throughput) throughput_files_.push_back(*streamed->throughput);
    return std::move(streamed->info);
  }

  bool saw_memory() const { return streamed_ ? saw_memory_ : ops_.saw_memory(); }
  const std::vector<FileThroughput>& throughput() const {
    return streamed_ ? throughput_files_ : throughput_.files();
  }

  const OpsFilesOptions& options_;
  const unsigned decoders_;
  const bool stream_;
  bool streamed_ = false;
  bool saw_memory_ = false;
  std::vector<FileThroughput> throughput_files_;
  std::string in_memory_because_;  // why a file was not streamed
  KeyAverages rows_;
  OpsRowsVisitor ops_;
  ThroughputVisitor throughput_;
  VisitorChain chain_;
};

}  // namespace

OpsFiles aggregate_ops_files(const std::vector<std::string>& paths,
                             const OpsFilesOptions& options) {
  OpsFiles out;
  out.rows.spill_above(rows_in_memory());
  // Cores the files leave idle decode frames beside the aggregation.
  const unsigned decoders = decoders_per_file(options.jobs, paths.size());
  load_files_parallel(
      paths, options.jobs,
      [&](uint32_t file) { return std::make_unique<OpsFileWork>(options, decoders, file); },
      [&](uint32_t /*file*/, FileWork& work, const FileInfo& info) {
        auto& file = static_cast<OpsFileWork&>(work);
        out.rows.merge(std::move(file.rows_));
        out.saw_memory = out.saw_memory || file.saw_memory();
        for (const FileThroughput& t : file.throughput()) out.throughput.push_back(t);
        if (!file.in_memory_because_.empty())
          out.in_memory.emplace_back(info.path, file.in_memory_because_);
        out.files.push_back(info);
      });
  return out;
}

}  // namespace gprof::analysis
