// What gpuprof says about a footer's holds, queue memory and timestamp
// calibration (footer_text.h), and how new loss reasons print.
#include "tools/analysis/render/footer_text.h"

#include <catch2/catch.hpp>

#include <vector>

#include "tools/analysis/read/profile.h"

namespace gprof::analysis {
namespace {

FileInfo with_footer(uint64_t holds, uint64_t held_ns, uint64_t max_held_ns) {
  FileInfo file;
  pb::Footer footer;
  footer.set_holds(holds);
  footer.set_held_ns(held_ns);
  footer.set_max_held_ns(max_held_ns);
  file.footer = footer;
  return file;
}

TEST_CASE("holds: one footer, several, none", "[footer_text]") {
  const HoldTotals one = footer_holds(with_footer(3, 12'500'000, 4'100'000).footer.value());
  CHECK(one.count == 3);
  CHECK(one.total_ns == 12'500'000);
  CHECK(one.max_ns == 4'100'000);
  CHECK(one.files == 1);
  CHECK(describe_holds(one) == "3 times, 12.500ms in all (longest 4.100ms)");
  CHECK(describe_holds(HoldTotals{1, 900, 900, 1}) == "1 time, 0.900us in all (longest 0.900us)");

  std::vector<FileInfo> files;
  files.push_back(with_footer(3, 12'500'000, 4'100'000));
  files.push_back(FileInfo{});            // no footer (killed)
  files.push_back(with_footer(0, 0, 0));  // never held
  files.push_back(with_footer(2, 2'000'000'000, 1'500'000'000));
  const HoldTotals sum = total_holds(files);
  CHECK(sum.count == 5);
  CHECK(sum.total_ns == 2'012'500'000);
  CHECK(sum.max_ns == 1'500'000'000);
  CHECK(sum.files == 2);
  CHECK(holds_note(files) ==
        "The programs of 2 files were held 5 times for 2.013s at GPROF_MAX_MEMORY (longest "
        "1.500s; GPROF_ON_FULL=wait)");
  files.pop_back();
  CHECK(holds_note(files) ==
        "The program was held 3 times for 12.500ms at GPROF_MAX_MEMORY (longest 4.100ms; "
        "GPROF_ON_FULL=wait)");
  files.erase(files.begin());
  CHECK(total_holds(files).count == 0);
  CHECK(holds_note(files).empty());
}

TEST_CASE("queue memory: peak of the cap, only with a cap", "[footer_text]") {
  pb::Footer footer;
  CHECK(describe_queue_memory(footer).empty());
  footer.set_peak_queue_bytes(12ull << 20);
  CHECK(describe_queue_memory(footer).empty());  // no cap: a footer from an older writer
  footer.set_max_queue_bytes(256ull << 20);
  CHECK(describe_queue_memory(footer) == "peak 12.00 MB of 256.00 MB (GPROF_MAX_MEMORY)");
  footer.set_thread_mapped_bytes(3ull << 20);
  CHECK(describe_queue_memory(footer) ==
        "peak 12.00 MB of 256.00 MB (GPROF_MAX_MEMORY); 3.00 MB of it mapped by recording "
        "threads, the writer being behind");
  footer.set_thread_mapped_bytes(0);
  footer.set_peak_queue_bytes(0);
  CHECK(describe_queue_memory(footer) == "peak 0 B of 256.00 MB (GPROF_MAX_MEMORY)");
}

TEST_CASE("timestamps: TSC with its calibration, clock_gettime, other sources", "[footer_text]") {
  pb::TimestampCalibration tsc;
  tsc.set_source("tsc");
  tsc.set_ticks_per_second(2.995e9);
  tsc.set_pairs(57);
  tsc.set_max_uncertainty_ns(31);
  tsc.set_max_residual_ns(12);
  CHECK(describe_timestamps(tsc) ==
        "TSC at 2.995 GHz, 57 calibration pairs, uncertainty <= 31ns, residual <= 12ns");
  tsc.set_pairs(1);
  tsc.set_max_residual_ns(0);
  CHECK(describe_timestamps(tsc) ==
        "TSC at 2.995 GHz, 1 calibration pair, uncertainty <= 31ns, residual <= 0ns");
  tsc.clear_ticks_per_second();
  tsc.clear_pairs();
  tsc.clear_max_uncertainty_ns();
  CHECK(describe_timestamps(tsc) == "TSC");

  pb::TimestampCalibration clock;
  clock.set_source("clock_gettime");
  CHECK(describe_timestamps(clock) == "clock_gettime");
  clock.set_source("rdtscp");  // a source this gpuprof does not know: as written
  clock.set_max_uncertainty_ns(5);
  CHECK(describe_timestamps(clock) == "rdtscp, uncertainty <= 5ns");
  CHECK(describe_timestamps(pb::TimestampCalibration{}) == "unknown source");
}

TEST_CASE("losses: the in-process reasons wait_timeout and thread_exit print like the others",
          "[footer_text]") {
  const LossList losses = {{"wait_timeout", 7}, {"cupti_dropped", 2}, {"thread_exit", 1}};
  CHECK_FALSE(is_cupti_loss("wait_timeout"));
  CHECK_FALSE(is_cupti_loss("thread_exit"));
  CHECK(format_losses(losses) == "wait_timeout=7 thread_exit=1; CUPTI: cupti_dropped=2");

  std::vector<FileInfo> files(2);
  pb::Footer a;
  pb::Loss* loss = a.add_losses();
  loss->set_reason("wait_timeout");
  loss->set_count(4);
  loss = a.add_losses();
  loss->set_reason("some_future_reason");
  loss->set_count(1);
  pb::Footer b;
  loss = b.add_losses();
  loss->set_reason("wait_timeout");
  loss->set_count(3);
  loss = b.add_losses();
  loss->set_reason("thread_exit");
  loss->set_count(2);
  files[0].footer = a;
  files[1].footer = b;
  CHECK(total_losses(files) ==
        LossList{{"wait_timeout", 7}, {"some_future_reason", 1}, {"thread_exit", 2}});
  CHECK(format_losses(total_losses(files)) == "wait_timeout=7 some_future_reason=1 thread_exit=2");
}

}  // namespace
}  // namespace gprof::analysis
