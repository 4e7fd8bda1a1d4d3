// gpuprof-gen: writes big, realistic sidecar files for benchmarks and tests
// of the readers (issue 13 item 5), one per rank, deterministic from a seed.
// A developer tool: built with the tree, not installed. See README.md
// ("Benchmarks") and tools/gen/workload.h.
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tools/gen/workload.h"

namespace {

// START:STOP step intervals of `option`, each after the one before, at
// most `max` of them; false after saying why on stderr.
bool parse_steps(const char* option, const std::vector<std::string>& texts, size_t max,
                 std::vector<std::pair<uint64_t, uint64_t>>& out) {
  for (const std::string& text : texts) {
    uint64_t start = 0, stop = 0;
    char end = 0;
    if (std::sscanf(text.c_str(), "%" SCNu64 ":%" SCNu64 "%c", &start, &stop, &end) != 2 ||
        stop <= start || (!out.empty() && start < out.back().second) || out.size() == max) {
      fmt::print(stderr,
                 "gpuprof-gen: error: {} {}: not START:STOP steps with START < STOP, after the "
                 "one before{}\n",
                 option, text, max == SIZE_MAX ? "" : fmt::format(" ({} at most)", max));
      return false;
    }
    out.emplace_back(start, stop);
  }
  return true;
}

// "20M" -> 20000000 (K, M, G: powers of 1000).
bool parse_count(const std::string& text, uint64_t& value) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  size_t used = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  uint64_t scale = 1;
  const std::string rest = text.substr(used);
  if (rest == "k" || rest == "K")
    scale = 1000;
  else if (rest == "m" || rest == "M")
    scale = 1000 * 1000;
  else if (rest == "g" || rest == "G")
    scale = 1000 * 1000 * 1000;
  else if (!rest.empty())
    return false;
  value = static_cast<uint64_t>(n) * scale;
  return true;
}

std::string expand(const std::string& pattern, uint32_t rank) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'r') {
      out += std::to_string(rank);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

struct Job {
  gprof::gen::Settings settings;
  std::string path;
  gprof::gen::Counts counts;
  std::string error;
  bool ok = false;
};

void run_job(Job& job, bool force) {
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);
  const int fd = open(job.path.c_str(), flags, 0644);
  if (fd < 0) {
    job.error = std::strerror(errno);
    return;
  }
  std::FILE* out = fdopen(fd, "wb");
  if (out == nullptr) {
    job.error = std::strerror(errno);
    close(fd);
    return;
  }
  std::vector<char> buffer(1 << 20);
  std::setvbuf(out, buffer.data(), _IOFBF, buffer.size());
  job.ok = gprof::gen::write_rank(job.settings, out, job.counts, job.error);
  if (std::fclose(out) != 0 && job.ok) {
    job.ok = false;
    job.error = std::strerror(errno);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gpuprof-gen: writes sidecar files of a made-up training run (several threads, nested "
      "PyTorch emit_nvtx ranges with seq and op_id, kernel launches with their GPU records, "
      "copies, sets, syncs, CUDA graphs, GPU buffers delivered out of order), one file per "
      "rank, the same bytes for the same options. Prints what it wrote as JSON.",
      "gpuprof-gen"};
  std::string records_text = "1M";
  gprof::gen::Settings settings;
  std::string output = "gen-rank%r.gprof";
  unsigned jobs = 0;
  bool force = false;
  app.add_option("--records", records_text,
                 "Records in all (API calls + GPU records + NVTX events), split evenly between "
                 "the ranks; each file holds exactly its share. K, M, G: thousands, millions, "
                 "billions")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--ranks", settings.ranks, "Processes (one file each, header rank 0..N-1)")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1u, 4096u));
  app.add_option("--threads", settings.threads,
                 "Recording threads per process: the main (training) thread, autograd, forward "
                 "workers, a pin-memory thread")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1u, 256u));
  app.add_option("--seed", settings.seed, "Seed of the made-up run")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--ops-per-step", settings.ops_per_step,
                 "Top-level ops of the main thread per ProfilerStep#N range")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  app.add_option("--first-correlation", settings.first_correlation,
                 "CUPTI correlation id of each file's first call. The ids are 32-bit and go on "
                 "at 1 after 4294967295, as in a run of 2^32 calls: a value near that makes "
                 "files whose ids wrap")
      ->type_name("ID")
      ->capture_default_str()
      ->check(CLI::Range(1u, UINT32_MAX));
  double gpu_lag_s = 0;
  app.add_option("--gpu-lag", gpu_lag_s,
                 "Seconds CUPTI holds each full buffer of GPU records before the file gets it, "
                 "as when the GPU falls behind a loop that queues work (default 0: within a "
                 "frame or two)")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, 3600.0));
  uint32_t slow_rank = UINT32_MAX;
  double slow_ms = 0;
  app.add_option("--slow-rank", slow_rank,
                 "A straggler: this rank waits --slow-by for its data at the start of each step "
                 "(in a DataLoader range), and the other ranks wait as long in each step's "
                 "all-reduce")
      ->type_name("RANK");
  app.add_option("--slow-by", slow_ms, "How long the --slow-rank waits per step (default 5 ms)")
      ->type_name("MS")
      ->check(CLI::Range(0.0, 600000.0));
  app.add_flag("--start-end", settings.start_end,
               "Each ProfilerStep#N also as an NVTX start/end range named train_step "
               "(nvtxRangeStartA/nvtxRangeEnd), a window in time for --range train_step");
  std::string comm = "serialized";
  app.add_option("--comm", comm,
                 "Where each step's all-reduce (an NCCL kernel) runs: 'serialized', after the "
                 "optimizer on the training stream with no compute beside it; 'overlapped', from "
                 "the middle of the step on a stream of its own beside the step's compute, the "
                 "optimizer waiting for it")
      ->type_name("serialized|overlapped")
      ->check(CLI::IsMember({"serialized", "overlapped"}))
      ->capture_default_str();
  std::vector<std::string> capture_text;
  app.add_option("--capture-window", capture_text,
                 "Record with capture windows (GPROF_CAPTURE=cudaProfilerApi), by step: START:STOP "
                 "opens before ProfilerStep#START and closes after ProfilerStep#(STOP-1); several "
                 "separated by commas. --records then counts the run's records, and the files "
                 "hold those made in a window, with the GPU work of calls outside that CUPTI "
                 "still reports")
      ->type_name("START:STOP")
      ->delimiter(',');
  std::vector<std::string> takeover_text;
  app.add_option("--takeover", takeover_text,
                 "Another tool (torch.profiler) takes CUPTI over, by step: START:STOP from before "
                 "ProfilerStep#START until after ProfilerStep#(STOP-1); several separated by "
                 "commas. From the first on, the calls carry the ids gprof pushes and their GPU "
                 "records pair through external correlations; each is a CUPTI gap, whose GPU "
                 "records the file lacks. --records then counts the run's records. With "
                 "--capture-window: the external correlations of the calls the window records")
      ->type_name("START:STOP")
      ->delimiter(',');
  app.add_option("-o,--output", output, "File name pattern; %r is the rank")
      ->type_name("PATTERN")
      ->capture_default_str();
  app.add_option("--jobs", jobs, "Files written at once (default: one per core)")
      ->type_name("N")
      ->check(CLI::Range(1u, 1024u));
  app.add_flag("--force", force, "Overwrite existing files");
  CLI11_PARSE(app, argc, argv);
  settings.gpu_lag_ns = static_cast<uint64_t>(gpu_lag_s * 1e9);
  settings.overlapped_comm = comm == "overlapped";
  if (slow_rank != UINT32_MAX) {
    if (slow_rank >= settings.ranks) {
      fmt::print(stderr, "gpuprof-gen: error: --slow-rank {}: the ranks are 0..{}\n", slow_rank,
                 settings.ranks - 1);
      return 2;
    }
    settings.slow_rank = slow_rank;
    settings.slow_ns = static_cast<uint64_t>((slow_ms > 0 ? slow_ms : 5.0) * 1e6);
  }
  if (!parse_steps("--capture-window", capture_text, 256, settings.capture_steps) ||
      !parse_steps("--takeover", takeover_text, SIZE_MAX, settings.takeover_steps))
    return 2;

  uint64_t records = 0;
  if (!parse_count(records_text, records)) {
    fmt::print(stderr, "gpuprof-gen: error: --records {}: not a count (20000, 20K, 20M)\n",
               records_text);
    return 2;
  }
  if (settings.ranks > 1 && output.find("%r") == std::string::npos) {
    fmt::print(stderr, "gpuprof-gen: error: --output needs %r with --ranks {}\n", settings.ranks);
    return 2;
  }
  std::vector<Job> all(settings.ranks);
  for (uint32_t r = 0; r < settings.ranks; ++r) {
    Job& job = all[r];
    job.settings = settings;
    job.settings.rank = r;
    job.settings.records = records / settings.ranks + (r < records % settings.ranks ? 1 : 0);
    job.path = expand(output, r);
    if (job.settings.records < gprof::gen::minimum_records(job.settings)) {
      fmt::print(stderr,
                 "gpuprof-gen: error: --records {} leaves rank {} {} records; it needs {}\n",
                 records_text, r, job.settings.records, gprof::gen::minimum_records(job.settings));
      return 2;
    }
  }
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, settings.ranks);

  const auto start = std::chrono::steady_clock::now();
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (unsigned i = 0; i < jobs; ++i)
    workers.emplace_back([&] {
      for (size_t j; (j = next.fetch_add(1)) < all.size();) run_job(all[j], force);
    });
  for (std::thread& w : workers) w.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  int status = 0;
  uint64_t total = 0, bytes = 0;
  std::string files;
  for (const Job& job : all) {
    if (!job.ok) {
      fmt::print(stderr, "gpuprof-gen: error: {}: {}\n", job.path, job.error);
      status = 1;
      continue;
    }
    const gprof::gen::Counts& c = job.counts;
    total += c.records();
    bytes += c.bytes;
    if (!files.empty()) files += ",\n  ";
    files += fmt::format(
        "{{\"path\": \"{}\", \"rank\": {}, \"records\": {}, \"api_records\": {}, "
        "\"gpu_records\": {}, \"range_events\": {}, \"launches\": {}, \"graph_launches\": {}, "
        "\"steps\": {}, \"threads\": {}, \"frames\": {}, \"bytes\": {}}}",
        job.path, job.settings.rank, c.records(), c.api, c.gpu, c.ranges, c.launches,
        c.graph_launches, c.steps, job.settings.threads, c.frames, c.bytes);
  }
  fmt::print(
      "{{\"records\": {}, \"bytes\": {}, \"seconds\": {:.3f}, \"records_per_second\": {:.0f}, "
      "\"files\": [\n  {}\n]}}\n",
      total, bytes, seconds, seconds > 0 ? static_cast<double>(total) / seconds : 0.0, files);
  return status;
}
