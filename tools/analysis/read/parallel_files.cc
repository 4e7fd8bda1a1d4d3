#include "tools/analysis/read/parallel_files.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace gprof::analysis {
namespace {

FileInfo read_one(uint32_t index, const std::string& path, FileWork& work) {
  if (std::optional<FileInfo> info = work.read(index, path)) return std::move(*info);
  return load_file(index, path, work.visitor());
}

}  // namespace

unsigned default_jobs() {
  return std::max(1u, std::thread::hardware_concurrency());
}

unsigned decoders_per_file(unsigned jobs, size_t files) {
  if (jobs == 0) jobs = default_jobs();
  const auto count = static_cast<unsigned>(std::max<size_t>(files, 1));
  return jobs >= 2 * count ? std::min(jobs / count - 1, kMaxDecoders) : 0;
}

std::vector<FileInfo> load_files_parallel(const std::vector<std::string>& paths, unsigned jobs,
                                          const MakeFileWork& make, const MergeFileWork& merge) {
  if (jobs == 0) jobs = default_jobs();
  const size_t count = paths.size();
  std::vector<FileInfo> files(count);
  if (jobs == 1 || count <= 1) {
    for (size_t i = 0; i < count; ++i) {
      const auto index = static_cast<uint32_t>(i);
      std::unique_ptr<FileWork> work = make(index);
      files[i] = read_one(index, paths[i], *work);
      merge(index, *work, files[i]);
    }
    return files;
  }

  // Files are started in order; one is started only while fewer than
  // `ahead` started files wait to be merged, so that a big file being merged
  // does not let the others pile up.
  const size_t ahead = size_t{jobs} * 2;
  std::vector<std::unique_ptr<FileWork>> works(count);
  std::vector<char> done(count, 0);
  std::mutex mutex;
  std::condition_variable changed;
  size_t next = 0;
  size_t merged = 0;
  bool stop = false;
  std::exception_ptr error;

  const auto worker = [&] {
    for (;;) {
      size_t i = 0;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return stop || next >= count || next < merged + ahead; });
        if (stop || next >= count) return;
        i = next++;
      }
      const auto index = static_cast<uint32_t>(i);
      std::unique_ptr<FileWork> work;
      FileInfo info;
      std::exception_ptr failed;
      try {
        work = make(index);
        info = read_one(index, paths[i], *work);
      } catch (...) {
        failed = std::current_exception();
      }
      std::lock_guard lock(mutex);
      if (failed) {
        if (!error) error = failed;
        stop = true;
      }
      works[i] = std::move(work);
      files[i] = std::move(info);
      done[i] = 1;
      changed.notify_all();
    }
  };
  std::vector<std::thread> threads;
  const size_t thread_count = std::min<size_t>(jobs, count);
  threads.reserve(thread_count);
  for (size_t t = 0; t < thread_count; ++t) threads.emplace_back(worker);

  for (size_t i = 0; i < count; ++i) {
    {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return done[i] != 0 || stop; });
      if (stop) break;
    }
    try {
      merge(static_cast<uint32_t>(i), *works[i], files[i]);
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
      stop = true;
      changed.notify_all();
      break;
    }
    std::lock_guard lock(mutex);
    works[i].reset();  // its results are merged: free them
    ++merged;
    changed.notify_all();
  }
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  return files;
}

}  // namespace gprof::analysis
