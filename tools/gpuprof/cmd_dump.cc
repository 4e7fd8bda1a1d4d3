// gpuprof dump FILE...: every recorded call as one JSON object per line, for
// scripts and tests that need the raw records rather than a table.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/analysis/profile.h"
#include "tools/gpuprof/commands.h"
#include "tools/gpuprof/diagnostics.h"

namespace gprof::cli {
namespace {

class DumpVisitor : public analysis::ProfileVisitor {
 public:
  void on_api(const analysis::ApiCall& call) override {
    const ApiRecord& r = call.record;
    nlohmann::json j = {
        {"file", call.file},       {"tid", r.tid},
        {"api", call.info.symbol}, {"name", call.info.display},
        {"start_ns", r.start_ns},  {"end_ns", r.end_ns},
        {"result", r.result},      {"correlation", r.correlation},
    };
    const uint32_t fields = call.info.fields;
    if (fields & kFieldLaunch) {
      j["kernel"] = call.kernel ? nlohmann::json(*call.kernel) : nlohmann::json(nullptr);
      j["grid"] = {r.grid.x, r.grid.y, r.grid.z};
      j["block"] = {r.block.x, r.block.y, r.block.z};
      j["shared_mem"] = r.shared_mem;
    }
    if (fields & kFieldStream) j["stream"] = r.stream;
    if (fields & kFieldBytes) j["bytes"] = r.bytes;
    if (fields & kFieldAddress) j["address"] = r.address;
    if (fields & kFieldCopyKind) j["copy_kind"] = r.copy_kind;
    std::string line = j.dump();
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
};

}  // namespace

void add_dump_command(CLI::App& app, int& exit_status) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "dump", "Print every recorded call as JSON Lines (one object per call, in file order)");
  cmd->add_option("files", *files, "Sidecar files")->required()->type_name("FILE");
  cmd->callback([files, &exit_status] {
    DumpVisitor visitor;
    std::vector<analysis::FileInfo> infos = analysis::load_files(*files, visitor);
    exit_status = check_files(infos) ? kExitOk : kExitFileError;
  });
}

}  // namespace gprof::cli
