// How much of a stream of intervals stays in memory before the rest goes to
// a temporary file (throughput_stream.h); small values in tests exercise the
// spill paths.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gprof::analysis {

struct SpillLimits {
  // Per device: recent merged work intervals kept in memory (16 bytes each);
  // the older half goes to disk when they are this many.
  size_t memory_intervals = size_t{64} << 10;
  // Intervals per chunk written to disk: the unit that has to be read back
  // when a chunk straddles a window edge.
  size_t chunk_intervals = 4096;
  // Chunk summaries kept per stream; beyond, neighbours merge (chunks grow).
  size_t max_chunks = 4096;
  // Read buffer per run or chunk being read back, in intervals.
  size_t block_intervals = 1024;
  // Runs of late intervals per level before they merge into one.
  size_t runs_per_level = 8;
};

// Chunk summaries past `limits.max_chunks` halve: neighbours lie side by
// side in the file, so merging their summaries (`merge(into, next)`) keeps
// memory flat at the price of longer reads back.
template <typename Chunk, typename Merge>
void merge_neighbour_chunks(std::vector<Chunk>& chunks, const SpillLimits& limits, Merge merge) {
  if (chunks.size() <= std::max<size_t>(limits.max_chunks, 2)) return;
  size_t kept = 0;
  for (size_t i = 0; i < chunks.size(); i += 2) {
    Chunk merged = chunks[i];
    if (i + 1 < chunks.size()) merge(merged, chunks[i + 1]);
    chunks[kept++] = merged;
  }
  chunks.resize(kept);
}

}  // namespace gprof::analysis
