#include "tools/gpuprof/cli/progress.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

#include "formats/read/reader.h"
#include "tools/analysis/read/work_progress.h"
#include "tools/gpuprof/cli/input_paths.h"
#include "tools/gpuprof/cli/recent_rate.h"

namespace gprof::cli {

using Clock = std::chrono::steady_clock;

// Drawn from the reading thread after a frame, at most every 100 ms: no
// thread of its own. Once every byte is read, the work after reading that a
// command reports (work_progress.h: trace's events) is drawn the same way
// from its thread; otherwise nothing is drawn then. The rates and the ETAs
// are the last few seconds' (recent_rate.h).
class ProgressDisplay final : public ReadProgress, public analysis::WorkProgress {
 public:
  // `work`: the noun of the units of the work after reading ("events").
  ProgressDisplay(uint64_t total, Clock::duration delay, std::string work)
      : total_(total),
        delay_(delay),
        start_(Clock::now()),
        work_(std::move(work)),
        rate_(start_, kWindow),
        work_rate_(start_, kWindow) {}

  void advanced(uint64_t bytes, uint64_t records) override {
    const uint64_t done = done_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    const uint64_t read = records_.fetch_add(records, std::memory_order_relaxed) + records;
    if (done >= total_) {
      std::lock_guard lock(mutex_);
      erase_locked();
      read_all_ = true;
      return;
    }
    const Clock::time_point now = Clock::now();
    if (now - start_ < delay_) return;
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock() || read_all_ || closed_) return;
    if (width_ != 0 && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    draw(now, done, read);
  }

  void total(uint64_t units) override { work_total_.store(units, std::memory_order_relaxed); }

  void done(uint64_t units) override {
    const uint64_t done = work_done_.fetch_add(units, std::memory_order_relaxed) + units;
    const Clock::time_point now = Clock::now();
    if (now - start_ < delay_) return;
    std::unique_lock lock(mutex_, std::try_to_lock);
    // While files are still read (the next file of a trace), the reading shows.
    if (!lock.owns_lock() || !read_all_ || closed_) return;
    if (width_ != 0 && now - last_draw_ < std::chrono::milliseconds(100)) return;
    if (!work_drawn_) {  // the rate from here, not from the start of reading
      work_rate_.restart(now, done - units, done - units);
      work_drawn_ = true;
      return;
    }
    last_draw_ = now;
    draw_work(now, done, work_total_.load(std::memory_order_relaxed));
  }

  void retract(uint64_t bytes, uint64_t records) override {
    const uint64_t done = done_.fetch_sub(bytes, std::memory_order_relaxed) - bytes;
    const uint64_t read = records_.fetch_sub(records, std::memory_order_relaxed) - records;
    std::lock_guard lock(mutex_);
    read_all_ = false;  // the file is read again: there is more to show
    rate_.restart(Clock::now(), done, read);
  }

  void finish() {
    std::lock_guard lock(mutex_);
    erase_locked();
    closed_ = true;
  }

  void erase() {
    std::lock_guard lock(mutex_);
    erase_locked();
  }

 private:
  void draw(Clock::time_point now, uint64_t done, uint64_t records) {
    const RecentRate::Rates recent = rate_.add(now, done, records);
    std::string eta = "?";
    if (recent.bytes_per_s > 0)
      eta = eta_text(static_cast<double>(total_ - done) / recent.bytes_per_s);
    show(fmt::format("gpuprof: read {} of {} ({}%), {} records/s, ETA {}", bytes_text(done),
                     bytes_text(total_), done * 100 / total_, count_text(recent.records_per_s),
                     eta));
  }

  void draw_work(Clock::time_point now, uint64_t done, uint64_t total) {
    const RecentRate::Rates recent = work_rate_.add(now, done, done);
    total = std::max(total, done);
    std::string eta = "?";
    if (recent.records_per_s > 0)
      eta = eta_text(static_cast<double>(total - done) / recent.records_per_s);
    show(fmt::format("gpuprof: wrote {} of {} {} ({}%), {} {}/s, ETA {}",
                     count_text(static_cast<double>(done)), count_text(static_cast<double>(total)),
                     work_, total == 0 ? 100 : done * 100 / total, count_text(recent.records_per_s),
                     work_, eta));
  }

  // `line` in place of the one on screen.
  void show(std::string line) {
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

  static std::string eta_text(double seconds) {
    const auto left = static_cast<uint64_t>(seconds + 0.5);
    return left >= 60 ? fmt::format("{}:{:02}", left / 60, left % 60) : fmt::format("{}s", left);
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
  const std::string work_;
  std::atomic<uint64_t> work_total_{0};
  std::atomic<uint64_t> work_done_{0};
  std::mutex mutex_;
  Clock::time_point last_draw_{};
  size_t width_ = 0;         // of the line on screen; 0: none
  bool read_all_ = false;    // every byte read: the work after reading shows
  bool closed_ = false;      // the scope ended: nothing more
  bool work_drawn_ = false;  // work_rate_ started
  RecentRate rate_;          // under mutex_
  RecentRate work_rate_;     // under mutex_
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
                             bool streams_stdout, std::string_view work) {
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
  display_ = std::make_unique<ProgressDisplay>(total, progress_delay(), std::string(work));
  set_read_progress(display_.get());
  if (!work.empty()) analysis::set_work_progress(display_.get());
  g_current.store(display_.get());
}

ProgressScope::~ProgressScope() {
  finish();
}

void ProgressScope::finish() {
  if (!display_) return;
  set_read_progress(nullptr);
  analysis::set_work_progress(nullptr);
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
