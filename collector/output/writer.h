// The writer thread: drains the rings, interns kernel names, encodes frames
// and writes the sidecar file. Everything here runs off the hot path.
//   writer.cc           the thread and its loop (passes, stock of chunks);
//   writer_drain.cc     queues decoded into frames, names interned;
//   writer_metadata.cc  header, devices, footer;
//   writer_file.cc      the file: opened, written, checked to be ours.
#pragma once

#include <semaphore.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collector/gpu/gpu_source.h"
#include "collector/interning/kernel_registry.h"
#include "collector/interning/string_table.h"
#include "collector/output/output_file.h"
#include "collector/output/process_info.h"
#include "collector/process/config.h"
#include "collector/queues/chunk_pool.h"
#include "collector/queues/queue_records.h"
#include "collector/queues/thread_queues.h"
#include "collector/queues/timestamp.h"
#include "formats/write/frame_encoder.h"

namespace gprof {

class Writer : private GpuSink {
 public:
  Writer(const Config& config, ChunkPool& chunks, ThreadQueues& queues, KernelRegistry& kernels,
         StringTable& strings);
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Starts the thread with all signals blocked. False: recording is off.
  bool start();
  // Asks for the final drain and the footer; waits at most `timeout_ms`.
  // Returns false when the writer did not finish in time.
  bool stop_and_wait(uint32_t timeout_ms);
  // In a fork child: drop the inherited descriptor, touch nothing else.
  void abandon_in_child();
  // The exit handler stopped waiting: exit goes on to unload CUPTI and the
  // driver, so the writer makes no more calls into them (it may still write
  // the file; its own code is never unloaded, -z nodelete).
  void abandon_at_exit() { gpu_calls_allowed_.store(false, std::memory_order_release); }
  sem_t* wake_semaphore() { return &wake_; }

 private:
  static void* thread_main(void* self);
  void run();
  bool open_file();
  void write_header();
  // One pass over all queues and the completed CUPTI buffers into one frame;
  // returns records encoded. Sets backlog_ when a queue had more than a pass takes.
  uint64_t drain_once(uint64_t max_per_queue);
  // One thread's records, up to `max`, into calls_ and ranges_.
  uint64_t drain_queue(ThreadQueue& queue, uint64_t max, uint64_t& ranges);
  // Decodes the record at `at`; returns its size, 0 when it cannot be read.
  uint32_t decode(ThreadQueue& queue, const char* at);
  uint64_t to_ns(ThreadQueue& queue, uint64_t ticks);
  void note_call(const ApiRecord& record);
  void calibrate(bool force);
  // Keeps chunks ready for the threads; more after a pass that found threads held.
  void stock_chunks();
  void top_up();
  uint32_t intern_inline(const char* text, uint32_t size, uint8_t string_class);
  void name_text(ThreadQueue& queue, const char* text, const QText& header);
  uint32_t intern_text(const char* text, uint32_t size, StringClass cls, uint64_t address);
  void emit_names();
  void gpu(GpuRecord& record, const char* kernel_name) override;
  void external_correlation(uint64_t correlation, uint64_t external_id) override;
  uint32_t intern_gpu_name(const char* name);
  void write_footer();
  void write_bytes(const void* data, size_t size);
  void write_frame(const ByteBuffer& payload);

  const Config& config_;
  ChunkPool& chunks_;
  ThreadQueues& queues_;
  KernelRegistry& kernels_;
  StringTable& strings_table_;
  sem_t wake_;
  sem_t done_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> gpu_calls_allowed_{true};
  GpuSource* gpu_source() const;
  std::atomic<bool> finished_{false};
  int fd_ = -1;
  bool write_failed_ = false;
  // The file's identity and our offset in it: before each write the
  // descriptor is checked to still be our file (docs/architecture.md §2.7).
  FileIdentity identity_;
  uint64_t offset_ = 0;
  uint32_t output_reopens_ = 0;
  bool output_is_ours();
  void poll_devices(uint64_t now_ns, bool final);
  bool devices_written_ = false;
  uint64_t last_device_poll_ns_ = 0;
  bool descriptor_is_ours() const;
  void close_output();  // never closes a descriptor the program put at our number
  char path_[4096] = {};
  char reopen_path_[4096] = {};  // path_, absolute
  ProcessInfo info_;
  uint32_t names_emitted_ = 1;  // kernel ids below this have a string entry
  uint64_t api_records_ = 0;
  uint64_t gpu_records_ = 0;
  uint32_t cupti_status_seen_ = 0;
  uint32_t transitions_seen_ = 0;  // capture window opens and closes in the status
  // CUPTI's kernel names, interned here (off the hot path). Their ids start
  // above any id the kernel registry can hand out.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> gpu_names_;
  uint32_t next_gpu_name_ = 1u << 24;
  TakeoverWatchdog::Calls drained_;  // since the last pass handed them on
  GpuActivitiesEncoder gpu_;
  ExternalCorrelationsEncoder external_;
  ByteBuffer gpu_strings_;
  ByteBuffer status_;
  uint64_t frames_ = 0;
  ApiCallsEncoder calls_;
  RangesEncoder ranges_;
  // Ids below these have a string entry; above, `emitted` marks the ones
  // whose entry is written (a slow interning thread leaves a gap).
  uint32_t strings_emitted_ = 0;
  std::vector<bool> string_emitted_;
  std::vector<bool> kernel_emitted_;
  // Names a full string table left with their events (QText), interned here.
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> inline_names_;
  uint32_t next_inline_name_ = 0x40000000u;
  ByteBuffer inline_strings_;
  char split_[kMaxInlineText];  // an emit_nvtx message's stable part
  TickConverter ticks_;
  uint64_t last_pair_ns_ = 0;
  bool backlog_ = false;
  uint32_t pass_ = 0;  // rotates where a pass starts among the queues
  uint32_t stock_target_ = ChunkPool::kChunksPerMapping;
  uint64_t holds_seen_ = 0;
  uint64_t range_events_ = 0;
  ByteBuffer strings_;
  ByteBuffer batches_;
  ByteBuffer frame_;
};

}  // namespace gprof
