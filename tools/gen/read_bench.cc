// gpuprof-read-bench: how fast formats/reader decodes sidecar files, with a
// visitor that does nothing (issue 13 item 2). A developer tool, like
// gpuprof-gen: built with the tree, not installed. Prints one JSON line.
// CPU user time is the figure to compare on a shared machine (wall time
// includes other people's work); `valgrind --tool=callgrind` on it gives
// instructions per record.
#include <sys/resource.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "formats/read/reader.h"

namespace {

// Reads every field it is handed, so that the compiler cannot drop the decoding.
struct Discard : gprof::RecordVisitor {
  void on_api(const gprof::ApiRecord& r) override { sum += r.start_ns ^ r.correlation; }
  void on_gpu(const gprof::GpuRecord& r) override { sum += r.end_ns ^ r.kernel; }
  void on_range(const gprof::RangeEvent& e) override { sum += e.time_ns ^ e.name; }
  uint64_t sum = 0;
};

double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gpuprof-read-bench: reads sidecar files with a visitor that does nothing; prints "
      "records, CPU user and system seconds and records per CPU user second as JSON.",
      "gpuprof-read-bench"};
  std::vector<std::string> paths;
  unsigned repeat = 1;
  app.add_option("files", paths, "Sidecar files")->required();
  app.add_option("--repeat", repeat, "Reads of each file")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000u));
  CLI11_PARSE(app, argc, argv);

  Discard visitor;
  uint64_t records = 0, frames = 0, bad = 0, bytes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < repeat; ++i)
    for (const std::string& path : paths) {
      const gprof::ReadStatus status = gprof::read_file(path, visitor);
      if (!status.opened) {
        fmt::print(stderr, "gpuprof-read-bench: error: {}: {}\n", path, status.error);
        return 1;
      }
      records += status.records + status.gpu_records + status.range_events;
      frames += status.frames;
      bad += status.bad_frames;
      bytes += status.file_bytes;
    }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double user = seconds(usage.ru_utime);
  const double sys = seconds(usage.ru_stime);
  fmt::print(
      "{{\"records\": {}, \"frames\": {}, \"bad_frames\": {}, \"bytes\": {}, \"wall_s\": {:.3f}, "
      "\"user_s\": {:.3f}, \"sys_s\": {:.3f}, \"M_records_per_user_s\": {:.2f}, "
      "\"M_records_per_cpu_s\": {:.2f}, \"checksum\": {}}}\n",
      records, frames, bad, bytes, wall, user, sys, records / 1e6 / std::max(user, 1e-6),
      records / 1e6 / std::max(user + sys, 1e-6), visitor.sum);
  return 0;
}
