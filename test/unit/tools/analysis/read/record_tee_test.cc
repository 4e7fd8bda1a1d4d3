// The tee hands both visitors everything, batches as batches, and only the
// first decides when the read stops.
#include "tools/analysis/read/record_tee.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "formats/read/record_batches.h"

namespace gprof::analysis {
namespace {

class Log final : public RecordVisitor {
 public:
  explicit Log(bool more = true) : more_(more) {}
  void on_header(const pb::FileHeader&) override { seen.push_back("header"); }
  void on_string(const pb::StringEntry&) override { seen.push_back("string"); }
  void on_api_batch(const ApiBatch& b) override {
    seen.push_back("api x" + std::to_string(b.size));
  }
  void on_gpu_batch(const GpuBatch& b) override {
    seen.push_back("gpu x" + std::to_string(b.size));
  }
  void on_range_batch(const RangeBatch& b) override {
    seen.push_back("range x" + std::to_string(b.size));
  }
  void on_external_correlation(uint64_t c, uint64_t e) override {
    seen.push_back("external " + std::to_string(c) + "->" + std::to_string(e));
  }
  void on_cupti(const pb::CuptiStatus&) override { seen.push_back("cupti"); }
  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>&) override {
    seen.push_back("devices");
  }
  void on_footer(const pb::Footer&) override { seen.push_back("footer"); }
  bool wants_more() override { return more_; }
  std::vector<std::string> seen;

 private:
  bool more_;
};

void feed(RecordVisitor& v) {
  v.on_header(pb::FileHeader{});
  v.on_devices({});
  v.on_string(pb::StringEntry{});
  ApiBatch api;
  api.size = 3;
  v.on_api_batch(api);
  GpuBatch gpu;
  gpu.size = 2;
  v.on_gpu_batch(gpu);
  RangeBatch ranges;
  ranges.size = 4;
  v.on_range_batch(ranges);
  v.on_external_correlation(5, 6);
  v.on_cupti(pb::CuptiStatus{});
  v.on_footer(pb::Footer{});
}

TEST_CASE("both visitors see every message and batch, in order") {
  Log first, second;
  RecordTee tee(first, second);
  feed(tee);
  const std::vector<std::string> all = {"header",   "devices",       "string", "api x3", "gpu x2",
                                        "range x4", "external 5->6", "cupti",  "footer"};
  CHECK(first.seen == all);
  CHECK(second.seen == all);
}

TEST_CASE("the first visitor decides whether the read goes on") {
  Log stops(false), goes_on(true);
  CHECK_FALSE(RecordTee(stops, goes_on).wants_more());
  CHECK(RecordTee(goes_on, stops).wants_more());
}

}  // namespace
}  // namespace gprof::analysis
