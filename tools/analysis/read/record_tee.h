// One read of a file for two visitors: everything the reader hands out goes
// to `first`, then to `second`, batches as batches. `first` decides when the
// read may stop early (wants_more); `second` only watches.
#pragma once

#include "formats/read/reader.h"

namespace gprof::analysis {

class RecordTee final : public RecordVisitor {
 public:
  RecordTee(RecordVisitor& first, RecordVisitor& second) : first_(first), second_(second) {}

  void on_header(const pb::FileHeader& header) override {
    first_.on_header(header);
    second_.on_header(header);
  }
  void on_string(const pb::StringEntry& entry) override {
    first_.on_string(entry);
    second_.on_string(entry);
  }
  void on_api(const ApiRecord& record) override {
    first_.on_api(record);
    second_.on_api(record);
  }
  void on_gpu(const GpuRecord& record) override {
    first_.on_gpu(record);
    second_.on_gpu(record);
  }
  void on_range(const RangeEvent& event) override {
    first_.on_range(event);
    second_.on_range(event);
  }
  void on_api_batch(const ApiBatch& batch) override {
    first_.on_api_batch(batch);
    second_.on_api_batch(batch);
  }
  void on_gpu_batch(const GpuBatch& batch) override {
    first_.on_gpu_batch(batch);
    second_.on_gpu_batch(batch);
  }
  void on_range_batch(const RangeBatch& batch) override {
    first_.on_range_batch(batch);
    second_.on_range_batch(batch);
  }
  void on_external_correlation(uint64_t correlation, uint64_t external_id) override {
    first_.on_external_correlation(correlation, external_id);
    second_.on_external_correlation(correlation, external_id);
  }
  void on_cupti(const pb::CuptiStatus& status) override {
    first_.on_cupti(status);
    second_.on_cupti(status);
  }
  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) override {
    first_.on_devices(devices);
    second_.on_devices(devices);
  }
  void on_footer(const pb::Footer& footer) override {
    first_.on_footer(footer);
    second_.on_footer(footer);
  }
  bool wants_more() override { return first_.wants_more(); }

 private:
  RecordVisitor& first_;
  RecordVisitor& second_;
};

}  // namespace gprof::analysis
