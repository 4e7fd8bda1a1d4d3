#include "collector/queues/chunk_pool.h"

#include <sys/mman.h>

namespace gprof {

void ChunkPool::configure(size_t max_bytes) {
  size_t chunks = max_bytes / kChunkBytes;
  chunks -= chunks % kChunksPerMapping;
  if (chunks < kChunksPerMapping) chunks = kChunksPerMapping;
  if (chunks > kMaxChunks) chunks = kMaxChunks;
  extra_chunks_ = static_cast<uint32_t>(chunks - kChunksPerMapping);
}

Chunk* ChunkPool::take() {
  uint64_t head = free_head_.load(std::memory_order_acquire);
  for (;;) {
    const uint32_t top = static_cast<uint32_t>(head);
    if (top == 0) return nullptr;
    Chunk* chunk = directory_[top - 1];
    // May read a chunk another thread has just taken: the tag then fails the CAS.
    const uint64_t next = chunk->free_next.load(std::memory_order_relaxed);
    const uint64_t wanted = (((head >> 32) + 1) << 32) | next;
    if (free_head_.compare_exchange_weak(head, wanted, std::memory_order_acq_rel,
                                         std::memory_order_acquire)) {
      free_count_.fetch_sub(1, std::memory_order_relaxed);
      return chunk;
    }
  }
}

void ChunkPool::push(Chunk* chunk) {
  uint64_t head = free_head_.load(std::memory_order_relaxed);
  for (;;) {
    chunk->free_next.store(static_cast<uint32_t>(head), std::memory_order_relaxed);
    const uint64_t wanted = (((head >> 32) + 1) << 32) | (chunk->index + 1u);
    if (free_head_.compare_exchange_weak(head, wanted, std::memory_order_release,
                                         std::memory_order_relaxed))
      break;
  }
  free_count_.fetch_add(1, std::memory_order_relaxed);
}

void ChunkPool::give_back(Chunk* chunk) {
  chunk->committed.store(chunk->data(), std::memory_order_relaxed);
  chunk->next.store(nullptr, std::memory_order_relaxed);
  push(chunk);
}

void ChunkPool::stock(uint32_t target) {
  while (free_chunks() < target && grow()) {
  }
}

bool ChunkPool::grow() {
  // The directory slots are claimed first, so that two growing threads never
  // share one; a refused mmap leaves its slots empty (and counted as mapped:
  // the cap is what bounds the attempts).
  uint32_t first = mapped_.load(std::memory_order_relaxed);
  growing_.fetch_add(1, std::memory_order_acq_rel);
  do {
    if (first + kChunksPerMapping > max_chunks()) {
      growing_.fetch_sub(1, std::memory_order_acq_rel);
      return false;
    }
  } while (
      !mapped_.compare_exchange_weak(first, first + kChunksPerMapping, std::memory_order_relaxed));
  // mmap, not malloc: the host's allocator may be in any state here. Not
  // populated: the pages a chunk never reaches cost nothing.
  void* memory = mmap(nullptr, kChunkBytes * kChunksPerMapping, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    growing_.fetch_sub(1, std::memory_order_acq_rel);
    return false;
  }
  auto* base = static_cast<char*>(memory);
  for (uint32_t i = 0; i < kChunksPerMapping; ++i) {
    auto* chunk = reinterpret_cast<Chunk*>(base + i * kChunkBytes);
    chunk->index = first + i;
    chunk->committed.store(chunk->data(), std::memory_order_relaxed);
    directory_[first + i] = chunk;
  }
  // push() publishes each chunk's directory slot with its release CAS.
  for (uint32_t i = 0; i < kChunksPerMapping; ++i) push(directory_[first + i]);
  growing_.fetch_sub(1, std::memory_order_acq_rel);
  return true;
}

void ChunkPool::reset_in_child() {
  free_head_.store(0, std::memory_order_relaxed);
  free_count_.store(0, std::memory_order_relaxed);
  mapped_.store(0, std::memory_order_relaxed);
  growing_.store(0, std::memory_order_relaxed);
}

}  // namespace gprof
