#include <catch2/catch.hpp>

#include "tools/analysis/read/profile.h"

namespace gprof::analysis {
namespace {

pb::Device device(uint32_t ordinal, std::string name, int32_t driver) {
  pb::Device d;
  d.set_ordinal(ordinal);
  d.set_name(std::move(name));
  d.set_driver_version(driver);
  return d;
}

TEST_CASE("merge_devices: a later frame completes the header", "[devices]") {
  pb::FileHeader header;
  google::protobuf::RepeatedPtrField<pb::Device> frame;
  *frame.Add() = device(0, "H200", 13000);
  *frame.Add() = device(1, "H200", 13000);
  merge_devices(header, frame);
  REQUIRE(header.devices_size() == 2);
  // The header was written before libcuda was loaded: the devices frame's answer is the driver.
  CHECK(header.cuda_driver_version() == 13000);

  SECTION("a device sent again replaces its entry") {
    google::protobuf::RepeatedPtrField<pb::Device> again;
    *again.Add() = device(1, "H200 NVL", 13000);
    merge_devices(header, again);
    REQUIRE(header.devices_size() == 2);
    CHECK(header.devices(1).name() == "H200 NVL");
  }
}

TEST_CASE("merge_devices: the header's own driver version stands", "[devices]") {
  pb::FileHeader header;
  header.set_cuda_driver_version(12080);
  google::protobuf::RepeatedPtrField<pb::Device> frame;
  *frame.Add() = device(0, "A100", 13000);
  merge_devices(header, frame);
  CHECK(header.cuda_driver_version() == 12080);
}

}  // namespace
}  // namespace gprof::analysis
