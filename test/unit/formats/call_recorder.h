// Every visitor call of a reader as a line, every field in it, to compare
// two readers (or two paths of one) call by call: the unit tests and the
// fuzz target (test/fuzz/) share it.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "formats/read/reader.h"

namespace gprof {

struct Recorder : RecordVisitor {
  void on_header(const pb::FileHeader& h) override { add("header " + h.ShortDebugString()); }
  void on_string(const pb::StringEntry& e) override { add("string " + e.ShortDebugString()); }
  void on_api(const ApiRecord& r) override {
    add("api " + join({static_cast<uint64_t>(r.api),
                       r.tid,
                       r.start_ns,
                       r.end_ns,
                       static_cast<uint64_t>(static_cast<int64_t>(r.result)),
                       r.correlation,
                       r.kernel,
                       r.grid.x,
                       r.grid.y,
                       r.grid.z,
                       r.block.x,
                       r.block.y,
                       r.block.z,
                       r.shared_mem,
                       r.stream,
                       r.bytes,
                       r.address,
                       r.copy_kind,
                       r.runtime,
                       static_cast<uint64_t>(r.kind)}));
  }
  void on_gpu(const GpuRecord& r) override {
    add("gpu " + join({static_cast<uint64_t>(r.kind),
                       r.start_ns,
                       r.end_ns,
                       r.correlation,
                       r.bytes,
                       r.graph_node,
                       r.kernel,
                       r.device,
                       r.stream,
                       r.graph,
                       r.grid.x,
                       r.grid.y,
                       r.grid.z,
                       r.block.x,
                       r.block.y,
                       r.block.z,
                       r.shared_mem,
                       r.registers,
                       r.peer_device,
                       r.detail,
                       r.copy_kind,
                       r.src_kind,
                       r.dst_kind}));
  }
  void on_range(const RangeEvent& e) override {
    add("range " +
        join({static_cast<uint64_t>(e.op), e.tid, e.time_ns, e.range_id, e.payload, e.name,
              e.domain, e.category, e.color, e.seq, e.op_id, static_cast<uint64_t>(e.kind)}));
  }
  void on_external_correlation(uint64_t c, uint64_t e) override { add("external " + join({c, e})); }
  void on_cupti(const pb::CuptiStatus& s) override { add("cupti " + s.ShortDebugString()); }
  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) override {
    for (const pb::Device& d : devices) add("device " + d.ShortDebugString());
  }
  void on_footer(const pb::Footer& f) override { add("footer " + f.ShortDebugString()); }

  static std::string join(std::initializer_list<uint64_t> values) {
    std::string out;
    for (uint64_t v : values) out += std::to_string(v) + " ";
    return out;
  }
  void add(std::string line) { lines.push_back(std::move(line)); }
  std::vector<std::string> lines;
};

}  // namespace gprof
