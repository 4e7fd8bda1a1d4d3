#include "formats/pipelined_reader.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace gprof {
namespace {

// One frame's visitor calls, to be made again on another thread: records in
// a vector of their own per kind, and the order of all calls as (kind,
// index) steps; protobuf messages (a few per file) kept whole.
struct Frame {
  enum Kind : uint8_t {
    kApi,
    kGpu,
    kRange,
    kExternal,
    kHeader,
    kString,
    kCupti,
    kDevices,
    kFooter
  };
  std::vector<std::pair<Kind, uint32_t>> steps;
  std::vector<ApiRecord> api;
  std::vector<GpuRecord> gpu;
  std::vector<RangeEvent> ranges;
  std::vector<std::pair<uint64_t, uint64_t>> external;
  std::vector<pb::FileHeader> headers;
  std::vector<pb::StringEntry> strings;
  std::vector<pb::CuptiStatus> cupti;
  std::vector<google::protobuf::RepeatedPtrField<pb::Device>> devices;
  std::vector<pb::Footer> footers;

  void clear() {
    steps.clear();
    api.clear();
    gpu.clear();
    ranges.clear();
    external.clear();
    headers.clear();
    strings.clear();
    cupti.clear();
    devices.clear();
    footers.clear();
  }

  void replay(RecordVisitor& v) const {
    for (const auto& [kind, i] : steps) {
      switch (kind) {
        case kApi:
          v.on_api(api[i]);
          break;
        case kGpu:
          v.on_gpu(gpu[i]);
          break;
        case kRange:
          v.on_range(ranges[i]);
          break;
        case kExternal:
          v.on_external_correlation(external[i].first, external[i].second);
          break;
        case kHeader:
          v.on_header(headers[i]);
          break;
        case kString:
          v.on_string(strings[i]);
          break;
        case kCupti:
          v.on_cupti(cupti[i]);
          break;
        case kDevices:
          v.on_devices(devices[i]);
          break;
        case kFooter:
          v.on_footer(footers[i]);
          break;
      }
    }
  }
};

// Frames between the two threads: full ones to the caller, emptied ones
// back to the decoder (their vectors keep their room).
class Channel {
 public:
  explicit Channel(size_t depth) : depth_(depth) {}

  std::unique_ptr<Frame> spare() {
    std::lock_guard lock(mutex_);
    if (spares_.empty()) return std::make_unique<Frame>();
    std::unique_ptr<Frame> f = std::move(spares_.back());
    spares_.pop_back();
    return f;
  }
  void give_back(std::unique_ptr<Frame> f) {
    f->clear();
    std::lock_guard lock(mutex_);
    spares_.push_back(std::move(f));
  }
  // False: the caller stopped; the frame is dropped.
  bool put(std::unique_ptr<Frame> f) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || full_.size() < depth_; });
    if (stopped_) return false;
    full_.push_back(std::move(f));
    changed_.notify_all();
    return true;
  }
  // nullptr once the decoder has finished and every frame was taken.
  std::unique_ptr<Frame> take() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return finished_ || !full_.empty(); });
    if (full_.empty()) return nullptr;
    std::unique_ptr<Frame> f = std::move(full_.front());
    full_.pop_front();
    changed_.notify_all();
    return f;
  }
  void finish() {
    std::lock_guard lock(mutex_);
    finished_ = true;
    changed_.notify_all();
  }
  void stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    changed_.notify_all();
  }
  bool stopped() const {
    std::lock_guard lock(mutex_);
    return stopped_;
  }

 private:
  const size_t depth_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<Frame>> full_;
  std::vector<std::unique_ptr<Frame>> spares_;
  bool finished_ = false;
  bool stopped_ = false;
};

// The decoding thread's visitor: fills a frame, hands it over at its end.
class Recorder final : public RecordVisitor {
 public:
  explicit Recorder(Channel& channel) : channel_(channel), frame_(channel.spare()) {}

  void on_header(const pb::FileHeader& header) override {
    add(Frame::kHeader, frame_->headers, header);
  }
  void on_string(const pb::StringEntry& entry) override {
    add(Frame::kString, frame_->strings, entry);
  }
  void on_api(const ApiRecord& record) override { add(Frame::kApi, frame_->api, record); }
  void on_gpu(const GpuRecord& record) override { add(Frame::kGpu, frame_->gpu, record); }
  void on_range(const RangeEvent& event) override { add(Frame::kRange, frame_->ranges, event); }
  void on_external_correlation(uint64_t correlation, uint64_t external_id) override {
    add(Frame::kExternal, frame_->external, std::make_pair(correlation, external_id));
  }
  void on_cupti(const pb::CuptiStatus& status) override {
    add(Frame::kCupti, frame_->cupti, status);
  }
  void on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) override {
    add(Frame::kDevices, frame_->devices, devices);
  }
  void on_footer(const pb::Footer& footer) override {
    add(Frame::kFooter, frame_->footers, footer);
  }

  // After each frame (reader.h).
  bool wants_more() override { return hand_over(); }

 private:
  template <typename T, typename V>
  void add(Frame::Kind kind, std::vector<T>& list, const V& value) {
    frame_->steps.emplace_back(kind, static_cast<uint32_t>(list.size()));
    list.push_back(value);
  }
  bool hand_over() {
    // Every frame, empty or not: the caller asks its visitor after each.
    if (!channel_.put(std::move(frame_))) return false;
    frame_ = channel_.spare();
    return true;
  }

  Channel& channel_;
  std::unique_ptr<Frame> frame_;
};

}  // namespace

ReadStatus read_file_pipelined(const std::string& path, RecordVisitor& visitor, size_t depth) {
  Channel channel(depth < 1 ? 1 : depth);
  ReadStatus status;
  std::exception_ptr decode_error;
  std::thread decoder([&] {
    try {
      Recorder recorder(channel);
      status = read_file(path, recorder);
    } catch (...) {
      decode_error = std::current_exception();
    }
    channel.finish();
  });
  std::exception_ptr visit_error;
  try {
    while (std::unique_ptr<Frame> frame = channel.take()) {
      frame->replay(visitor);
      const bool more = visitor.wants_more();
      channel.give_back(std::move(frame));
      if (!more) {
        channel.stop();
        break;
      }
    }
  } catch (...) {
    visit_error = std::current_exception();
    channel.stop();
  }
  decoder.join();
  if (visit_error) std::rethrow_exception(visit_error);
  if (decode_error) std::rethrow_exception(decode_error);
  return status;
}

}  // namespace gprof
