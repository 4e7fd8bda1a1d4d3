#include <catch2/catch.hpp>

#include "tools/analysis/read/file_facts.h"

namespace gprof::analysis {
namespace {

pb::StringEntry entry(pb::StringEntry::Kind kind, uint32_t id, std::string value) {
  pb::StringEntry e;
  e.set_kind(kind);
  e.set_id(id);
  e.set_value(std::move(value));
  return e;
}

TEST_CASE("FileFacts: kernel names apart from the other kinds, by id", "[file_facts]") {
  FileInfo info;
  FileFacts facts(info);
  facts.string(entry(pb::StringEntry::KERNEL, 3, "_Z3addv"));
  facts.string(entry(pb::StringEntry::NVTX, 3, "forward"));
  facts.string(entry(pb::StringEntry::DOMAIN, 3, "PyTorch"));
  facts.string(entry(pb::StringEntry::KERNEL, 5u << 20, "_Z3bigv"));  // past the indexed ids
  REQUIRE(facts.kernel(3) != nullptr);
  CHECK(*facts.kernel(3) == "_Z3addv");
  CHECK(*facts.kernel(5u << 20) == "_Z3bigv");
  CHECK(*facts.text(pb::StringEntry::NVTX, 3) == "forward");
  CHECK(*facts.text(pb::StringEntry::DOMAIN, 3) == "PyTorch");
  CHECK(facts.text(pb::StringEntry::THREAD, 3) == nullptr);
  CHECK(facts.kernel(4) == nullptr);
  CHECK(facts.kernel(1u << 30) == nullptr);
  CHECK(facts.kernels().size() == 2);
  // Id 0 is "no string", whatever an entry says.
  facts.string(entry(pb::StringEntry::NVTX, 0, "zero"));
  CHECK(facts.text(pb::StringEntry::NVTX, 0) == nullptr);
  CHECK(facts.kernel(0) == nullptr);
}

TEST_CASE("FileFacts: an id sent again with another text takes it in place", "[file_facts]") {
  FileInfo info;
  FileFacts facts(info);
  facts.string(entry(pb::StringEntry::NVTX, 7, "step"));
  facts.string(entry(pb::StringEntry::KERNEL, 2, "_Z1av"));
  const std::string* nvtx = facts.text(pb::StringEntry::NVTX, 7);
  const std::string* kernel = facts.kernel(2);
  CHECK_FALSE(facts.changes(entry(pb::StringEntry::NVTX, 7, "step")));
  CHECK_FALSE(facts.changes(entry(pb::StringEntry::NVTX, 8, "new id")));
  CHECK(facts.changes(entry(pb::StringEntry::NVTX, 7, "step 2")));
  CHECK(facts.changes(entry(pb::StringEntry::KERNEL, 2, "_Z1bv")));
  facts.string(entry(pb::StringEntry::NVTX, 7, "step 2"));
  facts.string(entry(pb::StringEntry::KERNEL, 2, "_Z1bv"));
  // The same objects: readers keep pointers to names.
  CHECK(facts.text(pb::StringEntry::NVTX, 7) == nvtx);
  CHECK(*nvtx == "step 2");
  CHECK(facts.kernel(2) == kernel);
  CHECK(*kernel == "_Z1bv");
}

TEST_CASE("FileFacts: the span of times, and GPU records without one", "[file_facts]") {
  FileInfo info;
  FileFacts facts(info);
  CHECK_FALSE(facts.untimed(100, 200));
  CHECK(facts.untimed(0, 0));
  CHECK(info.gpu.no_timestamp == 1);
  facts.seen(500, 700);
  facts.seen(300, 400);  // earlier start, earlier end: the end stands
  facts.seen(600, 900);
  CHECK(info.first_ns == 300);
  CHECK(info.last_ns == 900);
  // A first time of 0 is a time, not "none yet".
  FileInfo zero;
  FileFacts at_zero(zero);
  at_zero.seen(0, 10);
  at_zero.seen(5, 6);
  CHECK(zero.first_ns == 0);
}

TEST_CASE("FileFacts: header, devices, CUPTI status and footer into FileInfo", "[file_facts]") {
  FileInfo info;
  FileFacts facts(info);
  google::protobuf::RepeatedPtrField<pb::Device> devices;
  devices.Add()->set_name("H200");
  facts.devices(devices);  // before the header: a header is made for them
  REQUIRE(info.header);
  CHECK(info.header->devices_size() == 1);
  pb::FileHeader header;
  header.set_pid(42);
  facts.header(header);
  CHECK(info.header->pid() == 42);
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::EXTERNAL_CORRELATION);
  facts.cupti(status);
  REQUIRE(info.cupti);
  CHECK(info.cupti->state() == pb::CuptiStatus::EXTERNAL_CORRELATION);
  pb::Footer footer;
  footer.set_end_clock_ns(1234);
  facts.footer(footer);
  REQUIRE(info.footer);
  CHECK(info.footer->end_clock_ns() == 1234);
}

}  // namespace
}  // namespace gprof::analysis
