#include "tools/gpuprof/cli/progress.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "formats/reader.h"
#include "tools/gpuprof/cli/input_paths.h"
#include "tools/gpuprof/cli/recent_rate.h"

namespace gprof::cli {

using Clock = std::chrono::steady_clock;

// Drawn from the reading thread after a frame, at most every 100 ms: no
// thread of its own, so nothing is drawn once reading is over. The rate and
// the ETA are the last few seconds' (recent_rate.h).
class ProgressDisplay final : public ReadProgress {
 public:
  ProgressDisplay(uint64_t total, Clock::duration delay)
      : total_(total), delay_(delay), start_(Clock::now()), rate_(start_, kWindow) {}

  void advanced(uint64_t bytes, uint64_t records) override {
    const uint64_t done = done_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    const uint64_t read = records_.fetch_add(records, std::memory_order_relaxed) + records;
    if (done >= total_) {
      finish();
      return;
    }
    const Clock::time_point now = Clock::now();
    if (now - start_ < delay_) return;
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock() || finished_) return;
    if (width_ != 0 && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    draw(now, done, read);
  }

  void retract(uint64_t bytes, uint64_t records) override {
    const uint64_t done = done_.fetch_sub(bytes, std::memory_order_relaxed) - bytes;
    const uint64_t read = records_.fetch_sub(records, std::memory_order_relaxed) - records;
    std::lock_guard lock(mutex_);
    finished_ = false;  // the file is read again: there is more to show
    rate_.restart(Clock::now(), done, read);
  }

  void finish() {
    std::lock_guard lock(mutex_);
    erase_locked();
    finished_ = true;
  }

  void erase() {
    std::lock_guard lock(mutex_);
    erase_locked();
  }

 private:
  void draw(Clock::time_point now, uint64_t done, uint64_t records) {
    const RecentRate::Rates recent = rate_.add(now, done, records);
    std::string eta = "?";
    if (recent.bytes_per_s > 0) {
      const auto left =
          static_cast<uint64_t>(static_cast<double>(total_ - done) / recent.bytes_per_s + 0.5);
      eta = left >= 60 ? fmt::format("{}:{:02}", left / 60, left % 60) : fmt::format("{}s", left);
    }
    std::string line =
        fmt::format("gpuprof: read {} of {} ({}%), {} records/s, ETA {}", bytes_text(done),
                    bytes_text(total_), done * 100 / total_, count_text(recent.records_per_s), eta);
    // Overwrites a longer line before it.
    const size_t width = line.size();
    if (width < width_) line.append(width_ - width, ' ');
    std::fprintf(stderr, "\r%s", line.c_str());
    std::fflush(stderr);
    width_ = std::max(width_, width);
  }

  void erase_locked() {
    if (width_ == 0) return;
    std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
    std::fflush(stderr);
    width_ = 0;
  }

  static std::string bytes_text(uint64_t bytes) {
    const double b = static_cast<double>(bytes);
    if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GB", b / (1024.0 * 1024 * 1024));
    if (b >= 1024.0 * 1024) return fmt::format("{:.1f} MB", b / (1024.0 * 1024));
    return fmt::format("{:.0f} KB", b / 1024.0);
  }

  static std::string count_text(double n) {
    if (n >= 1e6) return fmt::format("{:.1f}M", n / 1e6);
    if (n >= 1e3) return fmt::format("{:.0f}K", n / 1e3);
    return fmt::format("{:.0f}", n);
  }

  static constexpr Clock::duration kWindow = std::chrono::seconds(3);

  const uint64_t total_;
  const Clock::duration delay_;
  const Clock::time_point start_;
  std::atomic<uint64_t> done_{0};
  std::atomic<uint64_t> records_{0};
  std::mutex mutex_;
  Clock::time_point last_draw_{};
  size_t width_ = 0;  // of the line on screen; 0: none
  bool finished_ = false;
  RecentRate rate_;  // under mutex_
};

namespace {

std::atomic<ProgressDisplay*> g_current{nullptr};

// GPUPROF_PROGRESS_DELAY_MS: how long a command runs before its progress shows
// (tests set 0); 1 s by default.
Clock::duration progress_delay() {
  const char* text = std::getenv("GPUPROF_PROGRESS_DELAY_MS");
  if (text != nullptr && *text != '\0') {
    char* end = nullptr;
    const unsigned long long ms = std::strtoull(text, &end, 10);
    if (end != nullptr && *end == '\0') return std::chrono::milliseconds(ms);
  }
  return std::chrono::seconds(1);
}

}  // namespace

ProgressScope::ProgressScope(const std::vector<std::string>& files, int passes, bool quiet,
                             bool streams_stdout) {
  if (quiet || !isatty(STDERR_FILENO)) return;
  if (streams_stdout && isatty(STDOUT_FILENO)) return;
  uint64_t total = 0;
  for (const std::string& file : files) {
    struct stat st {};
    // JSON baselines (diff) are not read by the sidecar reader.
    if (is_sidecar_file(file) && stat(file.c_str(), &st) == 0)
      total += static_cast<uint64_t>(st.st_size) * static_cast<uint64_t>(passes);
  }
  if (total == 0) return;
  display_ = std::make_unique<ProgressDisplay>(total, progress_delay());
  set_read_progress(display_.get());
  g_current.store(display_.get());
}

ProgressScope::~ProgressScope() {
  finish();
}

void ProgressScope::finish() {
  if (!display_) return;
  set_read_progress(nullptr);
  g_current.store(nullptr);
  display_->finish();
}

void erase_progress_line() {
  if (ProgressDisplay* display = g_current.load()) display->erase();
}

void add_quiet_flag(CLI::App& cmd, bool& quiet) {
  cmd.add_flag("-q,--quiet", quiet,
               "Show no progress (otherwise shown on stderr when it is a terminal and reading "
               "takes more than a second)");
}

}  // namespace gprof::cli
