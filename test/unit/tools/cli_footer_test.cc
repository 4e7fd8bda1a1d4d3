// What newer footers add (holds at the memory cap, queue memory, timestamp
// calibration, new loss reasons) and PyTorch's seq/op_id on NVTX ranges,
// through the real gpuprof binary; files without them print as before.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/cli_run.h"

namespace gprof {
namespace {

using test::gpuprof;
using test::make_call;
using test::make_range_event;
using test::Run;
using test::SidecarBuilder;

bool contains(const std::string& text, const std::string& part) {
  INFO(part);
  return text.find(part) != std::string::npos;
}

pb::Footer footer_with_holds() {
  pb::Footer footer;
  footer.set_api_records(2);
  pb::Loss* loss = footer.add_losses();
  loss->set_reason("wait_timeout");
  loss->set_count(2);
  loss = footer.add_losses();
  loss->set_reason("thread_exit");
  loss->set_count(1);
  footer.set_holds(3);
  footer.set_held_ns(12'500'000);
  footer.set_max_held_ns(4'100'000);
  footer.set_peak_queue_bytes(12ull << 20);
  footer.set_max_queue_bytes(256ull << 20);
  pb::TimestampCalibration* t = footer.mutable_timestamps();
  t->set_source("tsc");
  t->set_ticks_per_second(2.995e9);
  t->set_pairs(57);
  t->set_max_uncertainty_ns(31);
  t->set_max_residual_ns(12);
  return footer;
}

std::string file_with(const std::string& name, const pb::Footer& footer) {
  SidecarBuilder file;
  file.header(test::test_header())
      .calls(7, {make_call(ApiId::cudaMalloc, 1000, 500), make_call(ApiId::cudaFree, 2000, 100)})
      .footer(footer);
  return test::write_temp_file(name, file.bytes());
}

const std::string& held_file() {
  static const std::string path = file_with("held.gprof", footer_with_holds());
  return path;
}

const std::string& plain_file() {
  pb::Footer footer;
  footer.set_api_records(2);
  static const std::string path = file_with("not_held.gprof", footer);
  return path;
}

const char* const kHoldsNote =
    "The program was held 3 times for 12.500ms at GPROF_MAX_MEMORY (longest 4.100ms; "
    "GPROF_ON_FULL=wait)";

TEST_CASE("gpuprof info: holds, queue memory and timestamps from the footer", "[cli_footer]") {
  const Run run = gpuprof("info '" + held_file() + "'");
  CHECK(run.status == 0);
  CHECK(run.err.empty());
  CHECK(contains(run.out,
                 "Losses:           wait_timeout=2 thread_exit=1\n"
                 "Held at memory cap: 3 times, 12.500ms in all (longest 4.100ms) "
                 "(GPROF_ON_FULL=wait)\n"
                 "Queue memory:     peak 12.00 MB of 256.00 MB (GPROF_MAX_MEMORY)\n"
                 "Timestamps:       TSC at 2.995 GHz, 57 calibration pairs, uncertainty <= 31ns, "
                 "residual <= 12ns\n"));

  SECTION("clock_gettime, and a queue that was never held") {
    pb::Footer footer;
    footer.set_peak_queue_bytes(3 << 10);
    footer.set_max_queue_bytes(64ull << 20);
    footer.mutable_timestamps()->set_source("clock_gettime");
    const Run other = gpuprof("info '" + file_with("clock_gettime.gprof", footer) + "'");
    CHECK(other.status == 0);
    CHECK(contains(other.out,
                   "Losses:           none\n"
                   "Queue memory:     peak 3.00 KB of 64.00 MB (GPROF_MAX_MEMORY)\n"
                   "Timestamps:       clock_gettime\n"));
    CHECK_FALSE(contains(other.out, "Held at memory cap"));
  }
  SECTION("a footer without the new fields prints none of the lines") {
    const Run plain = gpuprof("info '" + plain_file() + "'");
    CHECK(plain.status == 0);
    CHECK(contains(plain.out, "Losses:           none\n"));
    CHECK_FALSE(contains(plain.out, "Held at memory cap"));
    CHECK_FALSE(contains(plain.out, "Queue memory"));
    CHECK_FALSE(contains(plain.out, "\nTimestamps:"));
  }
}

TEST_CASE("gpuprof report: the holds line under the table", "[cli_footer]") {
  const Run run = gpuprof("report '" + held_file() + "'");
  CHECK(run.status == 0);
  CHECK(contains(run.out,
                 std::string("Lost records: wait_timeout=2 thread_exit=1\n") + kHoldsNote + "\n"));
  const Run md = gpuprof("report --format md '" + held_file() + "'");
  CHECK(md.status == 0);
  CHECK(contains(md.out,
                 "\nThe program was held 3 times for 12.500ms at GPROF\\_MAX\\_MEMORY (longest "
                 "4.100ms; GPROF\\_ON\\_FULL=wait)\n"));
  // Several files: added up, the longest of all.
  pb::Footer other = footer_with_holds();
  other.clear_losses();
  other.set_holds(1);
  other.set_held_ns(7'500'000);
  other.set_max_held_ns(7'500'000);
  const Run two = gpuprof("report '" + held_file() + "' '" + file_with("held2.gprof", other) + "'");
  CHECK(contains(two.out,
                 "The programs of 2 files were held 4 times for 20.000ms at GPROF_MAX_MEMORY "
                 "(longest 7.500ms; GPROF_ON_FULL=wait)\n"));
  const Run plain = gpuprof("report '" + plain_file() + "'");
  CHECK_FALSE(contains(plain.out, "held"));
}

TEST_CASE("gpuprof report --format json: held, queue_memory, timestamps per file", "[cli_footer]") {
  const Run run = gpuprof("report --format json '" + held_file() + "'");
  REQUIRE(run.status == 0);
  // The notes go to stderr too, as the losses line does.
  CHECK(contains(run.err, kHoldsNote));
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  REQUIRE(doc["files"].size() == 1);
  const nlohmann::json& file = doc["files"][0];
  CHECK(file["losses"] == nlohmann::json::parse(R"({"wait_timeout":2,"thread_exit":1})"));
  CHECK(file["held"] ==
        nlohmann::json::parse(R"({"count":3,"total_ns":12500000,"max_ns":4100000})"));
  CHECK(file["queue_memory"] ==
        nlohmann::json::parse(
            R"({"peak_bytes":12582912,"max_bytes":268435456,"thread_mapped_bytes":0})"));
  CHECK(file["timestamps"]["source"] == "tsc");
  CHECK(file["timestamps"]["ticks_per_second"].get<double>() == 2.995e9);
  CHECK(file["timestamps"]["pairs"] == 57);
  CHECK(file["timestamps"]["max_uncertainty_ns"] == 31);
  CHECK(file["timestamps"]["max_residual_ns"] == 12);
  // Keys in the order docs/report-json.md lists them.
  const auto ordered = nlohmann::ordered_json::parse(run.out)["files"][0];
  std::vector<std::string> keys;
  for (auto it = ordered.begin(); it != ordered.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"path", "pid", "host", "rank", "command_line",
                                         "start_wall_ns", "losses", "held", "queue_memory",
                                         "timestamps", "ranges", "gpu", "integrity"});
  const std::vector<std::string> notes = doc["notes"].get<std::vector<std::string>>();
  CHECK(std::find(notes.begin(), notes.end(), kHoldsNote) != notes.end());

  const nlohmann::json plain =
      nlohmann::json::parse(gpuprof("report --format json '" + plain_file() + "'").out);
  CHECK_FALSE(plain["files"][0].contains("held"));
  CHECK_FALSE(plain["files"][0].contains("queue_memory"));
  CHECK_FALSE(plain["files"][0].contains("timestamps"));
  // Only the note about GPU times (the builder's header has no CUPTI), no holds note.
  INFO(plain["notes"].dump());
  for (const auto& note : plain["notes"]) CHECK_FALSE(contains(note.get<std::string>(), "held"));
}

TEST_CASE("gpuprof dump: torch seq and op_id of ranges", "[cli_footer]") {
  const auto with = [](RangeEvent e, uint64_t seq, uint64_t op_id) {
    e.seq = seq;
    e.op_id = op_id;
    return e;
  };
  SidecarBuilder file;
  file.header(test::test_header())
      .named(pb::StringEntry::NVTX, {{1, "aten::add"}, {2, "AddBackward0"}, {3, "plain"}})
      .ranges(5,
              {
                  with(make_range_event(RangeOp::kPush, 100, 1), 13, 34),
                  with(make_range_event(RangeOp::kPop, 200), 0, 99),
                  with(make_range_event(RangeOp::kPush, 300, 2), 13, 40),
                  make_range_event(RangeOp::kPop, 400),
                  make_range_event(RangeOp::kPush, 500, 3),
                  make_range_event(RangeOp::kPop, 600),
                  with(make_range_event(RangeOp::kStart, 700, 1, 9), 1, 0),
                  make_range_event(RangeOp::kEnd, 800, 0, 9),
              })
      .footer(pb::Footer{});
  const Run run =
      gpuprof("dump --records ranges '" + test::write_temp_file("seq.gprof", file.bytes()) + "'");
  REQUIRE(run.status == 0);
  std::vector<nlohmann::json> lines;
  std::istringstream in(run.out);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  REQUIRE(lines.size() == 4);
  CHECK(lines[0]["name"] == "aten::add");
  CHECK(lines[0]["seq"] == 12);  // torch's sequence_nr: the stored value - 1
  CHECK(lines[0]["op_id"] == 34);
  CHECK(lines[1]["name"] == "AddBackward0");
  CHECK(lines[1]["seq"] == 12);
  CHECK(lines[1]["op_id"] == 40);
  CHECK(lines[2]["name"] == "plain");
  CHECK_FALSE(lines[2].contains("seq"));
  CHECK_FALSE(lines[2].contains("op_id"));
  CHECK(lines[3]["kind"] == "start_end");
  CHECK(lines[3]["seq"] == 0);
  CHECK_FALSE(lines[3].contains("op_id"));
}

}  // namespace
}  // namespace gprof
