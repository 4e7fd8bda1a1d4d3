#include "tools/analysis/aggregate/ops_files.h"

#include <memory>

#include "tools/analysis/read/parallel_files.h"
#include "tools/analysis/read/visitor_chain.h"

namespace gprof::analysis {
namespace {

// One file's rows and lines; the throughput visitor asks the rows' visitor
// what --range keeps, as report's chain does.
class OpsFileWork : public FileWork {
 public:
  explicit OpsFileWork(const OpsFilesOptions& options)
      : ops_(rows_, options.ops),
        throughput_(options.steps.value_or(std::vector<std::string>{}),
                    options.ops.ranges.empty() ? nullptr : &ops_),
        chain_(options.steps ? std::vector<ProfileVisitor*>{&ops_, &throughput_}
                             : std::vector<ProfileVisitor*>{&ops_}) {}

  ProfileVisitor& visitor() override { return chain_; }

  KeyAverages rows_;
  OpsRowsVisitor ops_;
  ThroughputVisitor throughput_;
  VisitorChain chain_;
};

}  // namespace

OpsFiles aggregate_ops_files(const std::vector<std::string>& paths,
                             const OpsFilesOptions& options) {
  OpsFiles out;
  load_files_parallel(
      paths, options.jobs,
      [&](uint32_t /*file*/) { return std::make_unique<OpsFileWork>(options); },
      [&](uint32_t /*file*/, FileWork& work, const FileInfo& info) {
        auto& file = static_cast<OpsFileWork&>(work);
        out.rows.merge(std::move(file.rows_));
        out.saw_memory = out.saw_memory || file.ops_.saw_memory();
        for (const FileThroughput& t : file.throughput_.files()) out.throughput.push_back(t);
        out.files.push_back(info);
      });
  return out;
}

}  // namespace gprof::analysis
