// The memory of the per-thread queues (docs/architecture.md §2.3): fixed-size chunks,
// mapped by the writer ahead of need up to GPROF_MAX_MEMORY and handed to
// recording threads through a lock-free stack. A thread whose chunk is full
// takes the next one from the stack (its slow path, once per chunk); the
// writer returns each chunk once it has read it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gprof {

inline constexpr size_t kChunkBytes = 64u << 10;
inline constexpr size_t kChunkHeader = 64;
inline constexpr uint32_t kChunkData = kChunkBytes - kChunkHeader;

struct Chunk {
  // The end of the records the owner has published (release); the writer
  // reads up to here (acquire). A pointer, not an offset: the hot path's
  // commit is then a single store of its cursor.
  std::atomic<const char*> committed;
  uint32_t index;  // in the pool's directory
  // Set by the owner when it moved on, after its last commit here.
  std::atomic<Chunk*> next;
  // Link in the free stack: the next free chunk's index + 1, 0 for none.
  std::atomic<uint32_t> free_next;
  char* data() { return reinterpret_cast<char*>(this) + kChunkHeader; }
};

class ChunkPool {
 public:
  static constexpr uint32_t kMaxChunks = 1u << 16;  // 4 GiB of 64 KiB chunks
  static constexpr uint32_t kChunksPerMapping = 16;

  // Constructor time: the cap, rounded down to whole mappings (at least one).
  void configure(size_t max_bytes);

  // Any thread, slow path only: a free chunk, or nullptr when none is ready.
  Chunk* take();

  // Writer (or a single-threaded constructor / fork child): a chunk read to
  // its end goes back to the stack.
  void give_back(Chunk* chunk);
  // Maps chunks until `target` are free or the cap is reached.
  void stock(uint32_t target);
  // Any thread: maps one more group of chunks onto the stack; false at the
  // cap or when the kernel refuses. The writer stocks ahead of need; a
  // recording thread grows the pool itself only when the writer has fallen
  // behind (starved of CPU), which beats holding the program below the cap.
  bool grow();
  uint32_t free_chunks() const { return free_count_.load(std::memory_order_relaxed); }
  // Groups claimed by grow() and not yet on the stack (being mapped).
  uint32_t growing() const { return growing_.load(std::memory_order_acquire); }

  size_t mapped_bytes() const {
    return static_cast<size_t>(mapped_.load(std::memory_order_relaxed)) * kChunkBytes;
  }
  size_t max_bytes() const { return static_cast<size_t>(max_chunks()) * kChunkBytes; }
  bool at_cap() const { return mapped_.load(std::memory_order_relaxed) >= max_chunks(); }

  // In a fork child: the parent's chunks are forgotten (never freed, never
  // locked), the cap starts over.
  void reset_in_child();

 private:
  void push(Chunk* chunk);

  // Tag in the high 32 bits, top chunk's index + 1 in the low: the tag
  // defeats ABA between a pop's read of `free_next` and its CAS.
  std::atomic<uint64_t> free_head_{0};
  std::atomic<uint32_t> free_count_{0};
  std::atomic<uint32_t> mapped_{0};
  std::atomic<uint32_t> growing_{0};
  // Chunks allowed beyond the first mapping: stored so that zero bytes are
  // the default, and the pool (in ProcessState) stays in .bss.
  uint32_t extra_chunks_ = 0;
  uint32_t max_chunks() const { return kChunksPerMapping + extra_chunks_; }
  Chunk* directory_[kMaxChunks] = {};
};

}  // namespace gprof
