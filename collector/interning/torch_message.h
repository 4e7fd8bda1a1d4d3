// PyTorch's emit_nvtx names every op call uniquely:
//   "aten::add, seq = 12, op_id = 34, sizes = [[2, 3], [2, 3]], input_op_ids = [...]"
// (torch/csrc/profiler/util.cpp, getNvtxStr). Interning that whole text would
// fill any table; gprof interns the stable part ("aten::add, sizes = [[2, 3],
// [2, 3]]") and keeps seq and op_id as numbers in the record: seq links a
// backward op to its forward op. input_op_ids differ on every call and are
// not kept. Runs on the hot path: no allocation, one pass over the text.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gprof {

struct TorchMessage {
  size_t size = 0;     // of the stable part written to `out`
  uint64_t seq = 0;    // sequence_nr + 1; 0: none
  uint64_t op_id = 0;  // 0: none
};

// True when `text` carries ", seq = N" or ", op_id = M": `out` (at least
// `size` bytes) then holds the stable part and `m` the numbers. False: the
// text is not an emit_nvtx message and is interned as it is.
bool split_torch_message(const char* text, size_t size, char* out, TorchMessage& m);

}  // namespace gprof
